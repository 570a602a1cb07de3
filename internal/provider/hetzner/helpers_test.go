package hetzner_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/hetzner"
	"github.com/kyku/action/internal/provider/hetzner/hcloudtest"
	"github.com/kyku/action/internal/provider/providertest"
)

// clock is a fake clock shared by the provider and the fake cloud: the
// provider's sleeps advance it, so rate-limit refills and backoff take no
// real time and can be measured exactly.
type clock struct {
	mu    sync.Mutex
	now   time.Time
	slept time.Duration
	naps  []time.Duration
}

func newClock() *clock { return &clock{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.now = c.now.Add(d)
		c.slept += d
		c.naps = append(c.naps, d)
	}
	return nil
}

func (c *clock) Slept() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.slept
}

// env is one fake project and a provider on it.
type env struct {
	cloud *hcloudtest.Cloud
	p     *hetzner.Provider
	clock *clock
}

// setup starts a fake cloud and a provider speaking to it through the real
// hcloud-go client, under the fake's base path.
func setup(t *testing.T) *env {
	t.Helper()
	clk := newClock()
	cloud := hcloudtest.New(hcloudtest.Options{Now: clk.Now})
	t.Cleanup(cloud.Close)
	p := hetzner.NewWithClient(hetzner.NewClient(cloud.URL(), cloud.Token(), nil), hetzner.Options{
		MaxAttempts: 8, Backoff: time.Second, MaxBackoff: 30 * time.Second,
		PollInterval: time.Second, MaxPolls: 60, Now: clk.Now, Sleep: clk.Sleep,
	})
	return &env{cloud: cloud, p: p, clock: clk}
}

// publicKey is a well-formed OpenSSH ed25519 public key derived from seed
// (the fake parses keys as the API does, and keeps one per fingerprint).
func publicKey(seed string) string {
	sum := sha256.Sum256([]byte(seed))
	pub := ed25519.NewKeyFromSeed(sum[:]).Public().(ed25519.PublicKey)
	str := func(b []byte) []byte {
		out := binary.BigEndian.AppendUint32(nil, uint32(len(b)))
		return append(out, b...)
	}
	blob := append(str([]byte("ssh-ed25519")), str(pub)...)
	return "ssh-ed25519 " + base64.StdEncoding.EncodeToString(blob) + " " + seed + "@kyku"
}

// fixtures are the conformance fixtures for Hetzner: the default ones
// without Database (refused at plan time), each SSH key its own key.
func fixtures() providertest.Fixtures {
	fx := providertest.Default()
	var types []string
	for _, t := range fx.Types {
		if t != "Database" {
			types = append(types, t)
		}
	}
	fx.Types = types
	base := fx.Resource
	fx.Resource = func(typ, name, cloudName string, deps providertest.Deps) provider.Resource {
		r := base(typ, name, cloudName, deps)
		if typ == "SshKey" {
			r.Properties["publicKey"] = publicKey(cloudName)
		}
		return r
	}
	return fx
}

func res(typ, name string, props map[string]any) provider.Resource {
	return provider.Resource{Name: name, Type: typ, CloudName: "kyku0001-" + name, Prefix: "kyku0001", Properties: props}
}
