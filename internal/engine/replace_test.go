package engine_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
)

// TestReplaceRequested: --replace NAME (Terraform's -replace) replaces an
// object nothing forces to change: the plan shows it, and why, a saved
// plan carries the request, and apply makes a new object in place of the
// old one, whose dependents follow.
func TestReplaceRequested(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	cfg := parse(t, stack)
	mustApply(t, e, cfg)
	before := ids(w.state())
	objects := len(w.cloud())

	p, err := e.PlanWith(t.Context(), cfg, engine.PlanOptions{Replace: []string{"sg"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"replace SecurityGroup sg", "update Vm web"}, actions(p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	for _, c := range p.Changes {
		if c.ResourceID == "sg" && (c.Reason != "replacement requested (--replace)" || c.ReplaceOrder != plan.CreateBeforeDestroy) {
			t.Errorf("the replace says %q, %s; want why, and its replacement made first (web uses it)", c.Reason, c.ReplaceOrder)
		}
	}
	if !cmp.Equal(p.Replace, []string{"sg"}) {
		t.Errorf("plan.Replace = %v, want [sg]", p.Replace)
	}

	saved := roundTrip(t, p)
	res, err := e.Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true}, saved)
	if err != nil || res.Err() != nil {
		t.Fatalf("apply: %v / %v", err, res.Err())
	}
	if diff := cmp.Diff([]string{"replace SecurityGroup sg", "update Vm web"}, names(res.Succeeded)); diff != "" {
		t.Errorf("applied (-want +got):\n%s", diff)
	}
	after := ids(w.state())
	if after["sg"] == before["sg"] || after["sg"] == "" {
		t.Errorf("sg kept id %s: not replaced", before["sg"])
	}
	for _, n := range []string{"net", "sub", "web"} {
		if after[n] != before[n] {
			t.Errorf("%s: id %s → %s, want it kept", n, before[n], after[n])
		}
	}
	if got := w.state().Resources["web"].Config["securityGroups"]; !cmp.Equal(got, []any{after["sg"]}) {
		t.Errorf("web's security groups are %v, want the replacement %s", got, after["sg"])
	}
	if n := len(w.cloud()); n != objects {
		t.Errorf("the cloud holds %d objects after the replace, want %d (the old group gone)", n, objects)
	}
	if p := mustPlan(t, e, cfg); p.HasChanges() {
		t.Errorf("the plan after the replace has changes: %v", actions(p))
	}

	// Through Apply's own planning too; a name with instances is all of them.
	counted := parse(t, "resources:\n  key: { type: SshKey, count: 2, properties: { publicKey: k } }\n")
	mustApply(t, e, counted)
	res, err = e.Apply(t.Context(), counted, engine.ApplyOptions{AutoApprove: true, Replace: []string{"key"}}, nil)
	if err != nil || res.Err() != nil {
		t.Fatalf("apply --replace key: %v / %v", err, res.Err())
	}
	if diff := cmp.Diff([]string{"replace SshKey key[0]", "replace SshKey key[1]"}, names(res.Succeeded)); diff != "" {
		t.Errorf("applied (-want +got):\n%s", diff)
	}
}

// TestReplaceThatApplyCouldNotMakeIsRefused: a replace that must destroy
// the object first (its replacement cannot exist beside it) while a
// resource that stays still uses it would fail at apply, the sim (as EC2
// and Hetzner do) refusing to delete an object in use. The plan refuses it
// instead, saying what works; replacing the user too does.
func TestReplaceThatApplyCouldNotMakeIsRefused(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	want := `kyku.yaml:11:3: resource "sub" would be destroyed before its replacement is made, but "web" (Vm) stays and uses it (subnet), and the cloud does not delete an object in use: apply would fail there. Replace "web" too (--replace "web"), or change "sub" so that its replacement can be made first`
	for _, tt := range []struct {
		name, yaml string
		replace    []string
	}{
		{"asked for", stack, []string{"sub"}},
		{"forced by a change (a subnet stays in its zone)", variant("zone: sim-a", "zone: sim-b"), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.PlanWith(t.Context(), parse(t, tt.yaml), engine.PlanOptions{Replace: tt.replace})
			if err == nil || err.Error() != want {
				t.Errorf("err = %v\nwant %s", err, want)
			}
		})
	}
	before := ids(w.state())
	res, err := e.Apply(t.Context(), parse(t, stack), engine.ApplyOptions{AutoApprove: true, Replace: []string{"sub", "web"}}, nil)
	if err != nil || res.Err() != nil {
		t.Fatalf("apply --replace sub --replace web: %v / %v", err, res.Err())
	}
	after := ids(w.state())
	if after["sub"] == before["sub"] || after["web"] == before["web"] {
		t.Errorf("ids before %v after %v: want sub and web new", before, after)
	}
}

// TestReplaceRequestRefusals: a --replace that cannot be carried out as
// asked is refused before anything changes, naming it.
func TestReplaceRequestRefusals(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	protected := variant("  web:\n    type: Vm\n", "  web:\n    type: Vm\n    protect: true\n")
	for _, tt := range []struct {
		name, yaml string
		opts       engine.PlanOptions
		want       string
	}{
		{"not in the configuration", stack, engine.PlanOptions{Replace: []string{"wbe"}}, `--replace "wbe": not a resource of the configuration (did you mean "web"?)`},
		{"not an address", stack, engine.PlanOptions{Replace: []string{"web[*]"}}, `--replace "web[*]" is not a resource address`},
		{"protected", protected, engine.PlanOptions{Replace: []string{"web"}}, `kyku.yaml:14:3: resource "web" is protected (protect: true) and cannot be replaced, although --replace asks for it`},
		{"outside the targets", stack, engine.PlanOptions{Targets: []string{"sub"}, Replace: []string{"web"}}, `--replace "web": not among the resources --target (or --exclude) leaves to plan`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.PlanWith(t.Context(), parse(t, tt.yaml), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if p := mustPlan(t, e, parse(t, stack)); p.HasChanges() {
		t.Errorf("refused requests changed something: %v", actions(p))
	}
}

// TestInUseRefusalSeesEveryUserThatStays: what uses the object is what
// state holds, whatever the plan does with it — a user left out by
// --target, one that ignores changes to what it uses (a no-op) — and a
// protected user is not offered for replacing.
func TestInUseRefusalSeesEveryUserThatStays(t *testing.T) {
	ignoring := variant("  web:\n    type: Vm\n", "  web:\n    type: Vm\n    ignoreChanges: [subnet]\n")
	protected := variant("  web:\n    type: Vm\n", "  web:\n    type: Vm\n    protect: true\n")
	for _, tt := range []struct {
		name, yaml string
		opts       engine.PlanOptions
		want       string
	}{
		{"outside --target", stack, engine.PlanOptions{Targets: []string{"sub"}, Replace: []string{"sub"}}, `but "web" (Vm) stays and uses it (subnet)`},
		{"a no-op ignoring its subnet", ignoring, engine.PlanOptions{Replace: []string{"sub"}}, `but "web" (Vm) stays and uses it (subnet)`},
		{"a protected user", protected, engine.PlanOptions{Replace: []string{"sub"}}, `apply would fail there. Change "sub" so that its replacement can be made first`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			e := w.engine()
			mustApply(t, e, parse(t, tt.yaml))
			_, err := e.PlanWith(t.Context(), parse(t, tt.yaml), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v\nwant it to say %s", err, tt.want)
			}
		})
	}
}

// TestReplaceRequestedIsTheReason: --replace of a resource whose change
// forces a replace anyway says it was asked for (as OpenTofu's -replace:
// ReplaceByRequest before ReplaceBecauseCannotUpdate), and still shows
// which property forces it; a protected one is refused for the request.
func TestReplaceRequestedIsTheReason(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	changed := variant("image: debian-12", "image: debian-13")
	p, err := e.PlanWith(t.Context(), parse(t, changed), engine.PlanOptions{Replace: []string{"web"}})
	if err != nil {
		t.Fatal(err)
	}
	web := change(t, p, "web")
	if web.Action != plan.Replace || web.Reason != "replacement requested (--replace)" || forced(web) != "image" {
		t.Errorf("web: %s %q, forced %q; want a replace asked for, image forcing it", web.Action, web.Reason, forced(web))
	}
	protected := strings.Replace(changed, "  web:\n    type: Vm\n", "  web:\n    type: Vm\n    protect: true\n", 1)
	_, err = e.PlanWith(t.Context(), parse(t, protected), engine.PlanOptions{Replace: []string{"web"}})
	if want := `resource "web" is protected (protect: true) and cannot be replaced, although --replace asks for it`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("protected: %v; want %s", err, want)
	}
}

// forced lists the properties of c that force its replace.
func forced(c plan.Change) string {
	var out []string
	for _, pc := range c.Properties {
		if pc.ForcesReplace {
			out = append(out, pc.Path)
		}
	}
	return strings.Join(out, ", ")
}
