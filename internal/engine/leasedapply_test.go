package engine_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr/local"
)

// leased is an engine option: its applies lease their objects in the
// world's state directory, as kyku's are on local state by default.
func (w *world) leased() func(*engine.Options) { return w.leasedWith(time.Now) }

// leasedWith is leased with the leases' clock now (read first as an apply
// starts to take its leases).
func (w *world) leasedWith(now func() time.Time) func(*engine.Options) {
	return func(o *engine.Options) {
		m, err := lease.For(w.t.Context(), local.New(w.stateDir, "", local.Options{}), "", lease.Options{Timeout: 2 * time.Second, Poll: 10 * time.Millisecond, Now: now})
		if err != nil || m == nil {
			w.t.Fatalf("lease.For = %v, %v", m, err)
		}
		o.Leases = m
	}
}

// applyPaths are the two ways an apply holds the state once it exists:
// the whole-state lock, and leases on the objects it touches. What the
// user asked for is planned and applied the same on both.
var applyPaths = map[string]func(*world) *engine.Engine{
	"whole-state lock": func(w *world) *engine.Engine { return w.engine() },
	"leases":           func(w *world) *engine.Engine { return w.engine(w.leased()) },
}

// applyAs applies cfg with opts (auto-approved), returning the plan it
// carried out and the apply's error (its result's, when it ran).
func applyAs(t *testing.T, e *engine.Engine, cfg *config.Config, opts engine.ApplyOptions, saved *plan.Plan) (*plan.Plan, error) {
	t.Helper()
	var applied *plan.Plan
	opts.Confirm = func(p *plan.Plan) (bool, error) { applied = p; return true, nil }
	res, err := e.Apply(t.Context(), cfg, opts, saved)
	if err != nil {
		return applied, err
	}
	if applied == nil {
		applied = res.Plan
	}
	return applied, res.Err()
}

// TestApplyPlansWithItsOptionsOnEveryPath: `kyku apply --refresh=all`,
// `--refresh=none` and the time an apply plans at (what plantimestamp()
// reads) hold under leases, the default on local, S3 and GCS state, as
// under the whole-state lock.
func TestApplyPlansWithItsOptionsOnEveryPath(t *testing.T) {
	at := time.Date(2026, 12, 6, 19, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		drift func(*testing.T, *world)
		cfg   string
		opts  engine.ApplyOptions
		check func(*testing.T, *plan.Plan, error)
	}{
		{
			// web drifted; the change is key's: only reading every
			// object finds web's drift, and the apply sets it back.
			name: "--refresh=all",
			drift: func(t *testing.T, w *world) {
				editSimObject(t, w, "Vm", func(p map[string]any) { p["size"] = "large" })
			},
			cfg:  variant("AAAA test", "BBBB other"),
			opts: engine.ApplyOptions{Refresh: engine.RefreshAll},
			check: func(t *testing.T, p *plan.Plan, err error) {
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff([]string{"replace SshKey key", "update Vm web"}, actions(p)); d != "" {
					t.Errorf("applied (-want +got):\n%s", d)
				}
				if p.Reads == nil || p.Reads.Refresh != "all" {
					t.Errorf("plan reads %+v, want --refresh=all", p.Reads)
				}
			},
		},
		{
			// sg drifted: planned without reading it, the apply finds
			// the cloud moved since and refuses, as --refresh=none says.
			name: "--refresh=none",
			drift: func(t *testing.T, w *world) {
				editSimObject(t, w, "SecurityGroup", func(p map[string]any) { p["ingress"].([]any)[0].(map[string]any)["cidr"] = "10.9.0.0/16" })
			},
			cfg:  variant("port: 443", "port: 8443"),
			opts: engine.ApplyOptions{Refresh: engine.RefreshNone},
			check: func(t *testing.T, p *plan.Plan, err error) {
				if !engine.IsMoved(err) {
					t.Fatalf("apply: %v; want it refused, the cloud having moved since a plan that read nothing", err)
				}
				if p.Reads == nil || p.Reads.Refresh != "none" || p.Reads.Read != 0 {
					t.Errorf("plan reads %+v, want nothing read", p.Reads)
				}
			},
		},
		{
			name: "the plan's time",
			cfg:  variant("port: 443", "port: 8443"),
			opts: engine.ApplyOptions{Timestamp: at},
			check: func(t *testing.T, p *plan.Plan, err error) {
				if err != nil {
					t.Fatal(err)
				}
				if !p.CreatedAt.Equal(at) {
					t.Errorf("plan made at %s, want %s (ApplyOptions.Timestamp)", p.CreatedAt, at)
				}
			},
		},
	} {
		for path, eng := range applyPaths {
			t.Run(tc.name+", "+path, func(t *testing.T) {
				w := newWorld(t)
				mustApply(t, w.engine(), parse(t, stack))
				if tc.drift != nil {
					tc.drift(t, w)
				}
				opts := tc.opts
				opts.AutoApprove = true
				p, err := applyAs(t, eng(w), parse(t, tc.cfg), opts, nil)
				if p == nil {
					t.Fatalf("apply: %v, and no plan", err)
				}
				tc.check(t, p, err)
			})
		}
	}
}

// TestLeasedApplyPlansAgainWithItsOptions: a leased apply whose objects
// another apply changed between its plan and its leases plans again
// against the state as it is now, with the same --refresh: here the
// --refresh=all that finds web's drift.
func TestLeasedApplyPlansAgainWithItsOptions(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(), parse(t, stack))
	editSimObject(t, w, "Vm", func(p map[string]any) { p["size"] = "large" })
	serial := w.state().Metadata.Serial
	var once sync.Once
	meanwhile := func() time.Time {
		// Another apply changes key, which this one touches, just as it
		// starts to take its leases.
		once.Do(func() { mustApply(t, w.engine(), parse(t, variant("AAAA test", "CCCC meanwhile"))) })
		return time.Now()
	}
	cfg := variant("port: 443", "port: 8443", "AAAA test", "BBBB other")
	p, err := applyAs(t, w.engine(w.leasedWith(meanwhile)), parse(t, cfg), engine.ApplyOptions{AutoApprove: true, Refresh: engine.RefreshAll}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Serial == serial {
		t.Fatalf("the apply did not plan again (serial %d): the test tests nothing", p.Serial)
	}
	if d := cmp.Diff([]string{"replace SshKey key", "update SecurityGroup sg", "update Vm web"}, actions(p)); d != "" {
		t.Errorf("applied (-want +got):\n%s", d)
	}
	if p.Reads == nil || p.Reads.Refresh != "all" {
		t.Errorf("plan reads %+v, want --refresh=all", p.Reads)
	}
	if got := w.state().Resources["key"].Config["publicKey"]; got != "ssh-ed25519 BBBB other" {
		t.Errorf("key's publicKey %v after the apply", got)
	}
}

// TestSavedPlanAppliedWithItsRefreshOnEveryPath: a saved plan made with
// --refresh=all (reading web's drift, setting it back) or --refresh=none
// is planned again with the same refresh when applied, under leases as
// under the whole-state lock: it reads what it said it read, and one that
// read nothing is refused only by the apply's own read of what it changes.
func TestSavedPlanAppliedWithItsRefreshOnEveryPath(t *testing.T) {
	for _, tc := range []struct {
		name    string
		refresh engine.RefreshMode
		cfg     string
		drift   string // the type whose object drifts after the plan
		want    []string
	}{
		{name: "all", refresh: engine.RefreshAll, cfg: stack, want: []string{"update Vm web"}},
		{name: "none", refresh: engine.RefreshNone, cfg: variant("port: 443", "port: 8443"), want: []string{"update SecurityGroup sg"}},
		{name: "none, the changed object drifted since", refresh: engine.RefreshNone, cfg: variant("port: 443", "port: 8443"), drift: "SecurityGroup", want: []string{"update SecurityGroup sg"}},
	} {
		for path, eng := range applyPaths {
			t.Run(tc.name+", "+path, func(t *testing.T) {
				w := newWorld(t)
				mustApply(t, w.engine(), parse(t, stack))
				editSimObject(t, w, "Vm", func(p map[string]any) { p["size"] = "large" })
				e := eng(w)
				p, err := e.PlanWith(t.Context(), parse(t, tc.cfg), engine.PlanOptions{Refresh: tc.refresh})
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(tc.want, actions(p)); d != "" {
					t.Fatalf("planned (-want +got):\n%s", d)
				}
				if tc.drift != "" {
					editSimObject(t, w, tc.drift, func(p map[string]any) { p["ingress"].([]any)[0].(map[string]any)["cidr"] = "10.9.0.0/16" })
				}
				applied, err := applyAs(t, e, parse(t, tc.cfg), engine.ApplyOptions{AutoApprove: true}, roundTrip(t, p))
				if tc.drift != "" {
					if !engine.IsMoved(err) {
						t.Fatalf("apply of the saved plan: %v; want it refused as the cloud moved since the plan", err)
					}
					return
				}
				if err != nil {
					t.Fatalf("apply of the saved plan: %v", err)
				}
				if d := cmp.Diff(tc.want, actions(applied)); d != "" {
					t.Errorf("applied (-want +got):\n%s", d)
				}
				if applied.Reads == nil || applied.Reads.Refresh != tc.refresh.String() {
					t.Errorf("the applied plan's reads %+v, want --refresh=%s", applied.Reads, tc.refresh)
				}
			})
		}
	}
}

// withEdge is the stack and a Vm whose tags compute with web's and net's
// values (kyku.yaml templates the engine evaluates at apply).
var withEdge = variant("outputs:", `  edge:
    type: Vm
    properties:
      network: "${net}"
      image: debian-12
      tags:
        first: "${upper(web.publicIp)}"
        net: "net-${lower(net)}"
outputs:`)

// TestSavedPlanOfYAMLTemplatesOnEveryPath: a plan file keeps templates
// computing with resources as descriptions; its saved plan is refused
// without the configuration (changing nothing) and applied with it,
// evaluating the configuration's templates, under leases as under the
// whole-state lock.
func TestSavedPlanOfYAMLTemplatesOnEveryPath(t *testing.T) {
	for path, eng := range applyPaths {
		t.Run(path, func(t *testing.T) {
			w := newWorld(t)
			mustApply(t, w.engine(), parse(t, stack))
			e := eng(w)
			saved := roundTrip(t, mustPlan(t, e, parse(t, withEdge)))
			if !saved.Config.Expressions {
				t.Fatal("the plan file does not say its templates compute with resources: the test tests nothing")
			}
			before := w.cloud()
			_, err := applyAs(t, e, nil, engine.ApplyOptions{AutoApprove: true}, saved)
			if err == nil || !strings.Contains(err.Error(), "applied with that configuration: give the configuration it was planned from") {
				t.Fatalf("saved plan applied without its configuration: %v", err)
			}
			if got := w.cloud(); !slices.Equal(got, before) {
				t.Fatalf("a refused apply changed the cloud: %v → %v", before, got)
			}
			if _, err := applyAs(t, e, parse(t, withEdge), engine.ApplyOptions{AutoApprove: true}, saved); err != nil {
				t.Fatalf("apply of the saved plan with its configuration: %v", err)
			}
			st := w.state()
			want := map[string]any{
				"first": strings.ToUpper(st.Resources["web"].Outputs["publicIp"].(string)),
				"net":   "net-" + strings.ToLower(st.Resources["net"].ProviderID),
			}
			if d := cmp.Diff(want, st.Resources["edge"].Config["tags"]); d != "" {
				t.Errorf("edge's tags as applied (-want +got):\n%s", d)
			}
		})
	}
}

// TestLeasedSavedPlanHeldToItsObjects: under leases a saved plan is held
// to the versions of the objects it touches, not to the state's serial: a
// plan of key still applies after another apply changed sg, and a plan of
// sg is stale, naming it. Under the whole-state lock both are stale.
func TestLeasedSavedPlanHeldToItsObjects(t *testing.T) {
	for _, tc := range []struct {
		name, cfg string
		stale     map[string]string // by path: the refusal; "" applies
	}{
		{
			name:  "another apply changed another object",
			cfg:   variant("AAAA test", "BBBB other"),
			stale: map[string]string{"leases": "", "whole-state lock": "state serial is 3, plan was for 2"},
		},
		{
			name:  "another apply changed its object",
			cfg:   variant("0.0.0.0/0", "10.0.0.0/8"),
			stale: map[string]string{"leases": `"sg" changed since it was planned`, "whole-state lock": "state serial is 3, plan was for 2"},
		},
	} {
		for path, eng := range applyPaths {
			t.Run(tc.name+", "+path, func(t *testing.T) {
				w := newWorld(t)
				mustApply(t, w.engine(), parse(t, stack))
				e := eng(w)
				saved := roundTrip(t, mustPlan(t, e, parse(t, tc.cfg)))
				mustApply(t, eng(w), parse(t, variant("port: 443", "port: 8443")))
				serial := w.state().Metadata.Serial
				_, err := applyAs(t, e, parse(t, tc.cfg), engine.ApplyOptions{AutoApprove: true}, saved)
				want := tc.stale[path]
				if want == "" {
					if err != nil {
						t.Fatalf("apply of the saved plan: %v", err)
					}
					if got := w.state().Resources["key"].Config["publicKey"]; got != "ssh-ed25519 BBBB other" {
						t.Errorf("key's publicKey %v after the apply", got)
					}
					return
				}
				if !engine.IsStale(err) || !strings.Contains(err.Error(), want) {
					t.Fatalf("apply of the saved plan: %v; want it stale saying %q", err, want)
				}
				if got := w.state().Metadata.Serial; got != serial {
					t.Errorf("a stale plan wrote the state: serial %d → %d", serial, got)
				}
			})
		}
	}
}

// TestLeasedApplyRefusesACreateInterruptedWhileItWaited: another run's
// create of key2 was interrupted (its intent is open in the state) after
// this apply planned and before it held key2's lease: the object may
// exist, so this apply refuses to create key2 again, as its plan would
// have (a duplicate in the cloud otherwise), and creates nothing.
func TestLeasedApplyRefusesACreateInterruptedWhileItWaited(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(), parse(t, stack))
	before := w.cloud()
	var once sync.Once
	meanwhile := func() time.Time {
		once.Do(func() {
			st := w.state()
			st.Interrupted = map[string]string{"key2": "SshKey"}
			data, err := state.Encode(st)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(w.stateDir, "state.json"), data, 0o600); err != nil {
				t.Fatal(err)
			}
		})
		return time.Now()
	}
	cfg := variant("outputs:", "  key2:\n    type: SshKey\n    properties: { publicKey: \"ssh-ed25519 DDDD other\" }\noutputs:")
	_, err := applyAs(t, w.engine(w.leasedWith(meanwhile)), parse(t, cfg), engine.ApplyOptions{AutoApprove: true}, nil)
	var ie *engine.InterruptedError
	if !errors.As(err, &ie) || !slices.Equal(ie.Names, []string{"key2"}) {
		t.Fatalf("apply: %v; want key2's interrupted create refused", err)
	}
	if d := cmp.Diff(before, w.cloud()); d != "" {
		t.Errorf("the cloud changed (-before +after):\n%s", d)
	}
}

// TestSavedExcludePlanAppliedOnEveryPath: a saved plan made with
// --exclude applies as planned under leases as under the whole-state
// lock: the leased apply plans again only the saved plan's changes (its
// exclusion already in them), and leaves the outputs the saved plan left.
func TestSavedExcludePlanAppliedOnEveryPath(t *testing.T) {
	for path, eng := range applyPaths {
		t.Run(path, func(t *testing.T) {
			w := newWorld(t)
			mustApply(t, w.engine(), parse(t, stack))
			e := eng(w)
			cfg := variant("port: 443", "port: 8443", "AAAA test", "BBBB other")
			p, err := e.PlanWith(t.Context(), parse(t, cfg), engine.PlanOptions{Exclude: []string{"key"}})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([]string{"update SecurityGroup sg"}, actions(p)); d != "" {
				t.Fatalf("planned with --exclude key (-want +got):\n%s", d)
			}
			applied, err := applyAs(t, e, parse(t, cfg), engine.ApplyOptions{AutoApprove: true}, roundTrip(t, p))
			if err != nil {
				t.Fatalf("apply of the saved plan: %v", err)
			}
			if d := cmp.Diff([]string{"update SecurityGroup sg"}, actions(applied)); d != "" {
				t.Errorf("applied (-want +got):\n%s", d)
			}
			if got := w.state().Resources["key"].Config["publicKey"]; got == "ssh-ed25519 BBBB other" {
				t.Errorf("the excluded key was changed")
			}
		})
	}
}
