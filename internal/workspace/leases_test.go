package workspace_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/workspace"
	"github.com/kyku/action/internal/workspace/awsstore"
)

// withKey is a backend line of stores() with one more key in its map.
func withKey(backend, kv string) string {
	return strings.TrimSuffix(backend, " }\n") + ", " + kv + " }\n"
}

// TestLeasesAreTheDefaultWhereTheStoreCan: a configuration that says
// nothing of leases gets them on every store that enforces conditional
// writes (a local directory, S3, GCS, Spaces with its lock), and the
// whole-state lock elsewhere (Terraform's HTTP backend, Spaces with
// lock: false); leases: false opts out; leases: true on a store that
// cannot hold them is refused.
func TestLeasesAreTheDefaultWhereTheStoreCan(t *testing.T) {
	all := stores(t)
	type want struct {
		leased bool
		err    string
	}
	cases := map[string]want{
		"local": {leased: true}, "s3": {leased: true}, "gcs": {leased: true}, "spaces": {leased: true}, "http": {leased: false},
		"local, leases: false": {}, "s3, leases: false": {}, "gcs, leases: false": {}, "spaces, leases: false": {},
		"spaces, lock: false":                 {},
		"spaces, lock: false, leases: true":   {err: "leases: true needs a store that enforces conditional writes"},
		"local, leases: true":                 {leased: true},
		"no backend section (local, default)": {leased: true},
	}
	for name, w := range cases {
		t.Run(name, func(t *testing.T) {
			store, extra, _ := strings.Cut(name, ", ")
			backend := ""
			st, ok := all[store]
			switch {
			case store == "no backend section (local":
				t.Chdir(t.TempDir())
			case !ok:
				t.Skipf("no %s server here", store)
			default:
				backend = st.backend
				if extra != "" {
					backend = withKey(backend, extra)
				}
			}
			for k, v := range st.env {
				t.Setenv(k, v) // the AWS SDK reads its own environment
			}
			env := map[string]string{"KYKU_SIM_DIR": t.TempDir()}
			for k, v := range st.env {
				env[k] = v
			}
			cfg := mustParse(t, "provider: sim\n"+backend+"resources: {}\n")
			ws, err := workspace.Open(t.Context(), cfg, workspace.Settings{Env: "prod", Getenv: func(k string) string { return env[k] }, AWS: awsstore.Store{}}, provider.Registry{"sim": sim.Factory})
			if w.err != "" {
				if err == nil || !strings.Contains(err.Error(), w.err) {
					t.Fatalf("open = %v, want an error saying %q", err, w.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			if got := ws.Engine.Leased(); got != w.leased {
				t.Errorf("%s: leased = %v, want %v", backend, got, w.leased)
			}
		})
	}
}

// TestDefaultApplyLeasesOnlyWhatItTouches: with a configuration that says
// nothing of leases, an apply of one object goes on while another run
// holds the lease of a different object, and refuses, naming it, when the
// held object is one it changes; with leases: false it takes the
// whole-state lock instead (a run holding it makes the apply refuse).
func TestDefaultApplyLeasesOnlyWhatItTouches(t *testing.T) {
	for name, st := range stores(t) {
		if name == "http" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			for k, v := range st.env {
				t.Setenv(k, v)
			}
			env := map[string]string{"KYKU_SIM_DIR": t.TempDir()}
			for k, v := range st.env {
				env[k] = v
			}
			ctx := t.Context()
			settings := workspace.Settings{Env: "lz", Getenv: func(k string) string { return env[k] }, AWS: awsstore.Store{}, LockTimeout: 300 * time.Millisecond, PollInterval: 20 * time.Millisecond}
			apply := func(backend, aCIDR, bCIDR string) error {
				cfg := mustParse(t, "provider: sim\n"+backend+"resources:\n  a: { type: Vpc, properties: { cidr: "+aCIDR+" } }\n  b: { type: Vpc, properties: { cidr: "+bCIDR+" } }\n")
				ws, err := workspace.Open(ctx, cfg, settings, provider.Registry{"sim": sim.Factory})
				if err != nil {
					t.Fatal(err)
				}
				defer ws.Close()
				res, err := ws.Engine.Apply(ctx, cfg, engine.ApplyOptions{AutoApprove: true}, nil)
				if err == nil {
					err = res.Err()
				}
				return err
			}
			if err := apply(st.backend, "10.1.0.0/16", "10.2.0.0/16"); err != nil {
				t.Fatalf("first apply: %v", err)
			}
			ws, err := workspace.Open(ctx, mustParse(t, "provider: sim\n"+st.backend+"resources: {}\n"), settings, provider.Registry{"sim": sim.Factory})
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			m, err := lease.For(ctx, ws.Backend, "lz", lease.Options{Timeout: time.Second})
			if err != nil || m == nil {
				t.Fatalf("lease.For = %v, %v", m, err)
			}
			held, err := m.Acquire(ctx, []string{"a"}, lease.Holder{Lock: statemgr.LockInfo{Who: "other@ci", Operation: "apply"}})
			if err != nil {
				t.Fatal(err)
			}
			if err := apply(st.backend, "10.1.0.0/16", "10.3.0.0/16"); err != nil {
				t.Errorf("apply of b while another run leases a: %v", err)
			}
			err = apply(st.backend, "10.4.0.0/16", "10.3.0.0/16")
			var he *lease.HeldError
			if !errors.As(err, &he) || he.Object != "a" || !strings.Contains(err.Error(), "other@ci") {
				t.Errorf("apply of a while another run leases it: %v, want a refusal naming a and its holder", err)
			}
			if err := held.Release(context.WithoutCancel(ctx)); err != nil {
				t.Fatal(err)
			}

			// leases: false: the whole-state lock, which a run holding it
			// keeps from this apply.
			lk, err := ws.Backend.Lock(ctx, statemgr.LockInfo{Who: "other@ci", Operation: "apply"})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = lk.Unlock(context.WithoutCancel(ctx)) }()
			err = apply(withKey(st.backend, "leases: false"), "10.1.0.0/16", "10.5.0.0/16")
			if err == nil || !strings.Contains(err.Error(), "other@ci") {
				t.Errorf("apply with leases: false while another run holds the state lock: %v, want a refusal naming it", err)
			}
		})
	}
}
