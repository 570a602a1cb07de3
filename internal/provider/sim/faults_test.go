package sim

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kyku/action/internal/provider"
)

func TestLatencyWithinBounds(t *testing.T) {
	lo, hi := 50*time.Microsecond, 300*time.Microsecond
	p := newSim(t, Options{Dir: t.TempDir(), LatencyMin: lo, LatencyMax: hi, Seed: 7})
	seenLow, seenHigh := false, false
	for range 2000 {
		d := p.latency()
		if d < lo || d > hi {
			t.Fatalf("latency %s outside [%s, %s]", d, lo, hi)
		}
		seenLow = seenLow || d < lo+(hi-lo)/4
		seenHigh = seenHigh || d > hi-(hi-lo)/4
	}
	if !seenLow || !seenHigh {
		t.Errorf("2000 draws never reached both ends of [%s, %s]: not uniform", lo, hi)
	}
	// A call really sleeps at least the minimum.
	start := time.Now()
	if _, err := p.Zones(t.Context()); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < lo {
		t.Errorf("Zones took %s, below the minimum latency %s", el, lo)
	}
}

func TestLatencyCancelled(t *testing.T) {
	p := newSim(t, Options{Dir: t.TempDir(), LatencyMin: time.Hour, LatencyMax: time.Hour})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	_, err := p.Create(ctx, vpc("slow"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Create with 1h latency and a 10ms deadline: err = %v, want DeadlineExceeded", err)
	}
}

func TestFailRateOne(t *testing.T) {
	dir := t.TempDir()
	ok := newSim(t, Options{Dir: dir})
	obj := mustCreate(t, ok, vpc("existing"))
	p := newSim(t, Options{Dir: dir, FailRate: 1})
	ctx := t.Context()
	calls := []struct {
		name string
		call func() error
	}{
		{"Create", func() error { _, err := p.Create(ctx, vpc("new")); return err }},
		{"Read", func() error { _, err := p.Read(ctx, "Vpc", obj.ID); return err }},
		{"Lookup", func() error { _, err := p.Lookup(ctx, "Vpc", "pfx-existing"); return err }},
		{"Update", func() error { _, err := p.Update(ctx, obj.ID, vpc("existing")); return err }},
		{"Delete", func() error { return p.Delete(ctx, "Vpc", obj.ID) }},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			if err := c.call(); !provider.IsTransient(err) {
				t.Errorf("%s with FailRate=1: err = %v, want a transient error", c.name, err)
			}
		})
	}
	if _, err := p.Zones(ctx); err != nil {
		t.Errorf("Zones with FailRate=1: %v; the static zone list never fails", err)
	}
}

func TestLostResponse(t *testing.T) {
	dir := t.TempDir()
	p := newSim(t, Options{Dir: dir, FailRate: 1, Seed: 1})
	ctx := t.Context()
	after := 0
	for i := range 40 {
		r := vpc("lost")
		_, err := p.Create(ctx, r)
		if !provider.IsTransient(err) {
			t.Fatalf("create %d: err = %v, want transient", i, err)
		}
		if countObjects(t, dir, "Vpc", r.CloudName) == 1 {
			after++
			break
		}
	}
	if after == 0 {
		t.Fatal("40 injected failures all struck before the create; want about half after it")
	}
	retry := newSim(t, Options{Dir: dir})
	obj := mustCreate(t, retry, vpc("lost"))
	if n := countObjects(t, dir, "Vpc", "pfx-lost"); n != 1 {
		t.Errorf("after a lost response and a retry: %d objects named pfx-lost, want 1", n)
	}

	for range 40 {
		err := p.Delete(ctx, "Vpc", obj.ID)
		if errors.Is(err, provider.ErrNotFound) {
			t.Fatal("Delete reported not found before any lost response")
		}
		if _, err := retry.Read(ctx, "Vpc", obj.ID); errors.Is(err, provider.ErrNotFound) {
			break // the delete happened, its response was lost
		}
	}
	if err := retry.Delete(ctx, "Vpc", obj.ID); !errors.Is(err, provider.ErrNotFound) {
		t.Errorf("retrying a delete whose response was lost: err = %v, want ErrNotFound", err)
	}
}

func TestFailRules(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	plain := newSim(t, Options{Dir: dir})
	web := mustCreate(t, plain, provider.Resource{Name: "web", Type: "Vm", CloudName: "pfx-web",
		Properties: map[string]any{"image": "debian-12"}})
	api := mustCreate(t, plain, provider.Resource{Name: "api", Type: "Vm", CloudName: "pfx-api",
		Properties: map[string]any{"image": "debian-12"}})
	vm := func(name string) provider.Resource {
		return provider.Resource{Name: name, Type: "Vm", CloudName: "pfx-" + name,
			Properties: map[string]any{"image": "debian-12"}}
	}
	tests := []struct {
		rule string
		call func(p *Provider) error
		want string // "" means success
	}{
		{"create:Vm:web", func(p *Provider) error { _, err := p.Create(ctx, vm("web")); return err },
			`sim: create Vm "web": injected failure (KYKU_SIM_FAIL=create:Vm:web)`},
		{"create:Vm:web", func(p *Provider) error { _, err := p.Create(ctx, vm("api")); return err }, ""},
		{"create:Vm:web", func(p *Provider) error { _, err := p.Create(ctx, vpc("web")); return err }, ""},
		{"create:Vm:web", func(p *Provider) error { _, err := p.Read(ctx, "Vm", web.ID); return err }, ""},
		{"read:Vm:web", func(p *Provider) error { _, err := p.Read(ctx, "Vm", web.ID); return err },
			`sim: read Vm "web": injected failure (KYKU_SIM_FAIL=read:Vm:web)`},
		{"read:*:web", func(p *Provider) error { _, err := p.Lookup(ctx, "Vm", "pfx-web"); return err },
			`sim: read Vm "web": injected failure (KYKU_SIM_FAIL=read:*:web)`},
		{"update:Vm:*", func(p *Provider) error { _, err := p.Update(ctx, api.ID, vm("api")); return err },
			`sim: update Vm "api": injected failure (KYKU_SIM_FAIL=update:Vm:*)`},
		{"*:*:api", func(p *Provider) error { return p.Delete(ctx, "Vm", api.ID) },
			`sim: delete Vm "api": injected failure (KYKU_SIM_FAIL=*:*:api)`},
		{"delete:Vm:web,*:*:api", func(p *Provider) error { _, err := p.Read(ctx, "Vm", api.ID); return err },
			`sim: read Vm "api": injected failure (KYKU_SIM_FAIL=*:*:api)`},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			rules, err := ParseFailRules(tt.rule)
			if err != nil {
				t.Fatal(err)
			}
			err = tt.call(newSim(t, Options{Dir: dir, Fail: rules}))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Fatalf("error:\n got %s\nwant %s", got, tt.want)
			}
			var inj *InjectedError
			if err != nil && (!errors.As(err, &inj) || provider.IsTransient(err)) {
				t.Errorf("want a permanent *InjectedError, got %T", err)
			}
		})
	}
	// The refused delete left the object alone.
	if _, err := plain.Read(ctx, "Vm", api.ID); err != nil {
		t.Errorf("object after a refused delete: %v", err)
	}
}
