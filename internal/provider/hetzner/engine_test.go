package hetzner_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider/hetzner/hcloudtest"
	"github.com/kyku/action/internal/provider/providertest"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/local"
)

// engineOptions have the engine wait no real time between its retries.
var engineOptions = engine.Options{
	DeployPrefix: "kyku0001", RetryBase: time.Millisecond, DestroyBase: time.Millisecond, VerifyInterval: time.Millisecond,
}

func newEngine(t *testing.T, e *env) *engine.Engine {
	return engine.New(e.p, local.New(t.TempDir(), "", local.Options{}), engineOptions)
}

// TestEngineLifecycleOnFakeHetzner drives examples/hetzner through the
// engine on the Hetzner provider (real hcloud-go client, fake API with
// slow actions, slow boots, lock and rate-limit faults): apply → no-op →
// update (firewall rule, server size) → replace (image) → drift → destroy,
// which leaves the project empty.
func TestEngineLifecycleOnFakeHetzner(t *testing.T) {
	e := setup(t)
	e.cloud.SetActionPolls(3)
	e.cloud.SetBootPolls(4)
	e.cloud.SetRateLimit(3600, 3)              // the bucket runs dry early in the apply
	e.cloud.Fail("POST /servers", "locked", 2) // retried, not fatal
	e.cloud.Fail("POST /load_balancers", "server_error", 1)
	e.cloud.FailAfter("POST /firewalls", "bad_gateway", 1) // made, answer lost: found by name
	providertest.Lifecycle(t, providertest.Stack{
		Provider: e.p, Config: providertest.Example(t, "hetzner"), Created: 9,
		Engine: engineOptions, Inventory: e.cloud.Inventory,
		AfterCreate: func(t *testing.T) {
			// The bucket is empty from the fourth request on: the provider
			// paces the parallel workers by the headers (RateLimit-Remaining
			// 0 starts it even before a 429), so at most one 429 per
			// worker, not a storm.
			if n := e.cloud.Limited(); n > 10 {
				t.Errorf("%d answers were 429 during the apply; want at most the engine's parallelism (10)", n)
			}
			if calls, slept := e.cloud.Calls(""), e.clock.Slept(); slept < time.Duration(calls-3-10)*time.Second {
				t.Errorf("%d requests in %v of provider waits; an empty bucket refills one a second", calls, slept)
			}
			e.cloud.SetRateLimit(3600, 3600)
			for route, n := range map[string]int{"POST /networks": 1, "POST /servers": 4, "POST /firewalls": 2, "POST /load_balancers": 2} {
				if got := e.cloud.Calls(route); got < n {
					t.Errorf("%s called %d times, want at least %d (first attempts + injected faults, + any 429)", route, got, n)
				}
			}
			if inv := e.cloud.Inventory(); len(inv) != 6 { // network, firewall, key, 2 servers, LB; subnets and the group are no objects
				t.Errorf("project holds %v, want 6 objects", inv)
			}
			var lbTargets int
			e.cloud.Edit(func(st *hcloudtest.State) {
				for _, s := range st.Servers {
					if s.Status != "running" {
						t.Errorf("server %s is %s after apply, want running", s.Name, s.Status)
					}
					if s.Labels["kyku-tg/kyku0001-web-tg"] == "http-80" {
						lbTargets++
					}
				}
			})
			if lbTargets != 2 {
				t.Errorf("%d servers carry the target group's label, want 2", lbTargets)
			}
		},
		AfterUpdate: func(t *testing.T) {
			e.cloud.Edit(func(st *hcloudtest.State) {
				for _, s := range st.Servers {
					if s.Name == "kyku0001-web-0" && (s.ServerType != "cx33" || s.Status != "running") {
						t.Errorf("web-0 is %s and %s after the rescale, want cx33 and running", s.ServerType, s.Status)
					}
				}
			})
		},
		// Drift: a rule added in the console.
		Drift: func(t *testing.T) {
			e.cloud.Edit(func(st *hcloudtest.State) {
				for _, f := range st.Firewalls {
					if strings.HasSuffix(f.Name, "web-sg") {
						port := "3306"
						f.Rules = append(f.Rules, hcloudtest.Rule{Direction: "in", Protocol: "tcp", Port: &port, SourceIPs: []string{"0.0.0.0/0"}})
					}
				}
			})
		},
	})
}

// TestDatabaseRefusedAtPlanTime: a Database on Hetzner is a config error
// at plan time, positioned at the resource and naming it — nothing is
// created, not even the resources that come before it.
func TestDatabaseRefusedAtPlanTime(t *testing.T) {
	e := setup(t)
	eng := newEngine(t, e)
	text := providertest.Edit(t, providertest.Example(t, "hetzner"), "\noutputs:\n", `
  app-db:
    type: Database
    properties:
      network: ${main-vpc}
      engine: postgres

outputs:
`)
	line := 0
	for i, l := range strings.Split(text, "\n") {
		if l == "  app-db:" {
			line = i + 1
		}
	}
	_, err := eng.Apply(t.Context(), providertest.Parse(t, text), engine.ApplyOptions{AutoApprove: true}, nil)
	if err == nil {
		t.Fatal("apply with a Database on hetzner succeeded; want a config error")
	}
	want := regexp.MustCompile(`^kyku\.yaml:` + strconv.Itoa(line) + `:\d+: resource "app-db" \(Database\): hetzner has no managed databases`)
	if !want.MatchString(err.Error()) {
		t.Errorf("error = %q; want it at app-db's position (kyku.yaml:%d:col), naming it and saying hetzner has no databases", err, line)
	}
	if n := e.cloud.Calls(""); n != 0 {
		t.Errorf("%d API requests; a refused plan must make none", n)
	}
	if inv := e.cloud.Inventory(); len(inv) != 0 {
		t.Errorf("a refused apply created %v", inv)
	}
}

// TestDestroyResolvesStaleIDByName: a state written by an early version
// holds Kyku names where provider IDs belong; the provider tells the
// engine those IDs are stale (ValidID), so destroy resolves them by name
// and deletes the right objects — a subnet's "<network>/<cidr>" ID is not
// stale.
func TestDestroyResolvesStaleIDByName(t *testing.T) {
	e := setup(t)
	b := local.New(t.TempDir(), "", local.Options{})
	eng := engine.New(e.p, b, engineOptions)
	ctx := t.Context()
	cfg := providertest.Parse(t, `provider: { name: hetzner }
resources:
  net:
    type: Vpc
    properties: { cidr: 10.9.0.0/16, distributeAcrossAzs: 1 }
  key:
    type: SshKey
    properties: { publicKey: "`+publicKey("stale")+`" }
`)
	res, err := eng.Apply(ctx, cfg, engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil || res.Err() != nil {
		t.Fatalf("apply: %v %v", err, res.Err())
	}
	st, err := b.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Kyku IDs, as early versions wrote (the seed's "hetzner-test",
	// "p1s9hutn"): neither the name nor the cloud name, so only the
	// provider can tell they are stale.
	st.Resources["net"].ProviderID = "p1s9hutn"
	st.Resources["key"].ProviderID = "hetzner-test"
	st.Metadata.Serial++
	if err := b.Write(ctx, st, statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Destroy(ctx, engine.ApplyOptions{AutoApprove: true}); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if inv := e.cloud.Inventory(); len(inv) != 0 {
		t.Errorf("left after destroying a state with stale IDs: %v", inv)
	}
	for _, route := range []string{"GET /networks/{id}", "DELETE /networks/{id}"} {
		if e.cloud.Calls(route) == 0 {
			t.Errorf("%s never called: the stale ID was not resolved to the network's", route)
		}
	}
}
