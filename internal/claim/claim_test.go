package claim_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/claim"
	"github.com/kyku/action/internal/statemgr"
	s3b "github.com/kyku/action/internal/statemgr/s3"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

func TestMain(m *testing.M) { os.Exit(s3test.Main(m)) }

// memObjects is an in-memory statemgr.Conditional: versions count up.
type memObjects struct {
	mu   sync.Mutex
	objs map[string]memObject
	next int
}

type memObject struct {
	data []byte
	v    statemgr.Version
}

func newMem() *memObjects { return &memObjects{objs: map[string]memObject{}} }

func (m *memObjects) version() statemgr.Version {
	m.next++
	return statemgr.Version(strconv.Itoa(m.next))
}

func (m *memObjects) CreateObject(_ context.Context, key string, data []byte) (statemgr.Version, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objs[key]; ok {
		return "", fmt.Errorf("%s: %w", key, statemgr.ErrExists)
	}
	o := memObject{data: data, v: m.version()}
	m.objs[key] = o
	return o.v, nil
}

func (m *memObjects) ReadObject(_ context.Context, key string) ([]byte, statemgr.Version, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objs[key]
	if !ok {
		return nil, "", fmt.Errorf("%s: %w", key, statemgr.ErrNotFound)
	}
	return o.data, o.v, nil
}

func (m *memObjects) ReplaceObject(_ context.Context, key string, data []byte, v statemgr.Version) (statemgr.Version, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if o, ok := m.objs[key]; !ok || o.v != v {
		return "", fmt.Errorf("%s: %w", key, statemgr.ErrConflict)
	}
	o := memObject{data: data, v: m.version()}
	m.objs[key] = o
	return o.v, nil
}

func (m *memObjects) DeleteObject(_ context.Context, key string, v statemgr.Version) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objs[key]
	switch {
	case !ok:
		return nil
	case o.v != v:
		return fmt.Errorf("%s: %w", key, statemgr.ErrConflict)
	}
	delete(m.objs, key)
	return nil
}

// clock is a test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestTakeRenewReleaseExpire(t *testing.T) {
	ctx := t.Context()
	clk := &clock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	objs := newMem()
	a := claim.New(objs, claim.Options{Now: clk.now})
	b := claim.New(objs, claim.Options{Now: clk.now})

	c, err := a.Take(ctx, "jobs/1.json", "replica-a", "plan #2", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if c.Holder != "replica-a" || !c.Until.Equal(clk.now().Add(time.Minute)) || c.Token == "" {
		t.Errorf("claim = %+v", c)
	}
	_, err = b.Take(ctx, "jobs/1.json", "replica-b", "", time.Minute)
	var held *claim.HeldError
	if !errors.As(err, &held) || !errors.Is(err, claim.ErrHeld) || held.Record.Holder != "replica-a" || held.Record.Note != "plan #2" {
		t.Fatalf("second Take: %v, want HeldError naming replica-a", err)
	}

	// Renewed before it expires, it stays a's.
	clk.advance(50 * time.Second)
	if err := a.Renew(ctx, c, time.Minute); err != nil {
		t.Fatal(err)
	}
	clk.advance(50 * time.Second)
	if _, err := b.Take(ctx, "jobs/1.json", "replica-b", "", time.Minute); !errors.Is(err, claim.ErrHeld) {
		t.Fatalf("Take of a renewed claim: %v, want ErrHeld", err)
	}

	// Expired, b takes it over; a has lost it.
	clk.advance(11 * time.Second)
	cb, err := b.Take(ctx, "jobs/1.json", "replica-b", "", time.Minute)
	if err != nil || cb.Holder != "replica-b" {
		t.Fatalf("Take of an expired claim: %+v, %v", cb, err)
	}
	if err := a.Renew(ctx, c, time.Minute); !errors.Is(err, claim.ErrLost) {
		t.Errorf("Renew of a lost claim: %v, want ErrLost", err)
	}
	if err := a.Release(ctx, c); !errors.Is(err, claim.ErrLost) {
		t.Errorf("Release of a lost claim: %v, want ErrLost", err)
	}
	if err := b.Release(ctx, cb); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Take(ctx, "jobs/1.json", "replica-a", "", time.Minute); err != nil {
		t.Errorf("Take after release: %v", err)
	}

	// What is not a claim is taken over.
	if _, err := objs.CreateObject(ctx, "jobs/junk.json", []byte("not json")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Take(ctx, "jobs/junk.json", "replica-a", "", time.Minute); err != nil {
		t.Errorf("Take over a non-claim: %v", err)
	}
	if _, err := a.Take(ctx, "jobs/x.json", "a", "", 0); err == nil {
		t.Error("Take with no duration succeeded")
	}
}

// TestOneTakerWinsOnS3: replicas race for one key on the real S3 server,
// each through its own backend; exactly one holds the claim, the others
// are told who does; once it expired, again exactly one takes it over.
func TestOneTakerWinsOnS3(t *testing.T) {
	s := s3test.Require(t)
	bucket := s.NewBucket(t)
	t.Setenv("AWS_ACCESS_KEY_ID", s.Access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s.Secret)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	ctx := t.Context()
	clk := &clock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	const replicas = 6
	stores := make([]*claim.Store, replicas)
	for i := range stores {
		b, err := s3b.New(ctx, s3b.Config{Bucket: bucket, Prefix: "bot", Region: s.Region, Endpoint: s.Endpoint, UsePathStyle: true}, "", s3b.Options{})
		if err != nil {
			t.Fatal(err)
		}
		stores[i] = claim.New(b, claim.Options{Now: clk.now})
	}
	race := func(round string) {
		t.Helper()
		var wg sync.WaitGroup
		won := make([]bool, replicas)
		errs := make([]error, replicas)
		for i, st := range stores {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = st.Take(ctx, "deliveries/x.json", "replica-"+strconv.Itoa(i), round, time.Hour)
				won[i] = errs[i] == nil
			}()
		}
		wg.Wait()
		n := 0
		for i, w := range won {
			if w {
				n++
			} else if !errors.Is(errs[i], claim.ErrHeld) {
				t.Errorf("%s: replica %d: %v", round, i, errs[i])
			}
		}
		if n != 1 {
			t.Errorf("%s: %d replicas hold the claim, want exactly 1", round, n)
		}
	}
	race("first")
	clk.advance(2 * time.Hour)
	race("after expiry")
}
