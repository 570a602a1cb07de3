package engine_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider/sim"
)

// TestMovedWholeResource: a moved entry of two resource names moves every
// instance state holds (count: app[0] → web[0]; forEach: edge["a"] →
// gate["a"]), as OpenTofu's moved block does: the plan shows one move per
// instance and nothing created or destroyed, apply keeps every object and
// ID (the sim renames them in the cloud), a resource that used them stays,
// and the next plan, the entry still there, is empty.
func TestMovedWholeResource(t *testing.T) {
	tests := []struct {
		name, repeat, from, to string
		insts                  []string // keys, as written after the name
		cloud                  []string
	}{
		{"count", "count: 2", "app", "web", []string{"[0]", "[1]"}, []string{"TargetGroup/test-tg", "Vm/test-web-0", "Vm/test-web-1", "Vpc/test-vpc"}},
		{"forEach", "forEach: [a, b]", "edge", "gate", []string{`["a"]`, `["b"]`}, []string{"TargetGroup/test-tg", "Vm/test-gate-a", "Vm/test-gate-b", "Vpc/test-vpc"}},
	}
	const yaml = `
resources:
  vpc: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }
  NAME: { type: Vm, REPEAT, properties: { image: debian-12, network: "${vpc}" } }
  tg: { type: TargetGroup, properties: { targets: "${NAME[*]}" } }
`
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			e := w.engine()
			at := func(name string) string {
				return strings.NewReplacer("NAME", name, "REPEAT", tt.repeat).Replace(yaml)
			}
			mustApply(t, e, parse(t, at(tt.from)))
			before := ids(w.state())
			cfg := parse(t, at(tt.to)+"moved:\n  - { from: "+tt.from+", to: "+tt.to+" }\n")
			p := mustPlan(t, e, cfg)
			var want []string
			for _, k := range tt.insts {
				want = append(want, "move Vm "+tt.to+k)
			}
			if diff := cmp.Diff(want, actions(p)); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
			if c := p.Counters; c.Move != len(tt.insts) || c.Create+c.Destroy+c.Replace+c.Update != 0 {
				t.Errorf("counters %+v, want moves only", c)
			}
			mustApply(t, e, cfg)
			after := ids(w.state())
			for _, k := range tt.insts {
				if after[tt.to+k] == "" || after[tt.to+k] != before[tt.from+k] {
					t.Errorf("%s: id %q, want %s's %q", tt.to+k, after[tt.to+k], tt.from+k, before[tt.from+k])
				}
				if _, ok := after[tt.from+k]; ok {
					t.Errorf("%s still in state", tt.from+k)
				}
			}
			if deps := w.state().Resources["tg"].Dependencies; !cmp.Equal(deps, prefixed(tt.to, tt.insts)) {
				t.Errorf("tg depends on %v", deps)
			}
			if got := w.cloud(); !cmp.Equal(got, tt.cloud) {
				t.Errorf("cloud = %v, want %v", got, tt.cloud)
			}
			if p := mustPlan(t, e, cfg); p.HasChanges() {
				t.Errorf("second plan changes: %v", actions(p))
			}
		})
	}
}

func prefixed(name string, keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = name + k
	}
	return out
}

// TestMovedWholeResourceRefusals: what a whole-resource move cannot do is
// refused at plan, positioned at its entry, nothing changed: a move of one
// object from a name state holds only instances of (OpenTofu would leave
// them to be destroyed), instances the destination does not declare (a
// smaller count, or forEach keys for count indexes), one object onto a
// resource with instances, a destination in state already, another type.
func TestMovedWholeResourceRefusals(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, `
resources:
  app: { type: SshKey, count: 3, properties: { publicKey: k } }
  one: { type: SshKey, properties: { publicKey: k } }
  taken: { type: SshKey, count: 1, properties: { publicKey: k } }
  vpcs: { type: Vpc, count: 1, properties: { cidr: 10.0.0.0/16 } }
`))
	const keep = `
  taken: { type: SshKey, count: 1, properties: { publicKey: k } }
  vpcs: { type: Vpc, count: 1, properties: { cidr: 10.0.0.0/16 } }
  one: { type: SshKey, properties: { publicKey: k } }
`
	tests := []struct{ name, yaml, want string }{
		{"one object onto an instance", `
resources:
  web: { type: SshKey, count: 3, properties: { publicKey: k } }` + keep + `moved:
  - { from: app, to: "web[0]" }
`, `kyku.yaml:7:5: moved app → web[0]: state holds instances of "app" (app[0], app[1], app[2]), not one object: move the whole resource (to: web), or each instance in an entry of its own`},
		{"a smaller count", `
resources:
  web: { type: SshKey, count: 2, properties: { publicKey: k } }` + keep + `moved:
  - { from: app, to: web }
`, `kyku.yaml:7:5: moved app → web (app[2] → web[2]): web[2] is not in the configuration of the default environment, so it would be destroyed; fix the entry`},
		{"forEach keys for count indexes", `
resources:
  web: { type: SshKey, forEach: [a, b, c], properties: { publicKey: k } }` + keep + `moved:
  - { from: app, to: web }
`, `kyku.yaml:7:5: moved app → web (app[0] → web[0]): web[0] is not in the configuration of the default environment, so it would be destroyed; fix the entry
kyku.yaml:7:5: moved app → web (app[1] → web[1]): web[1] is not in the configuration of the default environment, so it would be destroyed; fix the entry
kyku.yaml:7:5: moved app → web (app[2] → web[2]): web[2] is not in the configuration of the default environment, so it would be destroyed; fix the entry`},
		{"one object onto a resource with instances", `
resources:
  app: { type: SshKey, count: 3, properties: { publicKey: k } }
  taken: { type: SshKey, count: 1, properties: { publicKey: k } }
  vpcs: { type: Vpc, count: 1, properties: { cidr: 10.0.0.0/16 } }
  keys: { type: SshKey, count: 2, properties: { publicKey: k } }
moved:
  - { from: one, to: keys }
`, `kyku.yaml:7:5: moved one → keys: state holds one "one", and "keys" has instances (count or forEach): move it to one of them (to: "keys[0]")`},
		{"a destination in state", `
resources:
  taken: { type: SshKey, count: 3, properties: { publicKey: k } }
  vpcs: { type: Vpc, count: 1, properties: { cidr: 10.0.0.0/16 } }
  one: { type: SshKey, properties: { publicKey: k } }
moved:
  - { from: app, to: taken }
`, `kyku.yaml:6:5: moved app → taken: both are in state; remove one with kyku state rm, or drop the entry`},
		{"another type", `
resources:
  app: { type: SshKey, count: 3, properties: { publicKey: k } }
  taken: { type: SshKey, count: 1, properties: { publicKey: k } }
  nets: { type: SshKey, count: 1, properties: { publicKey: k } }
  one: { type: SshKey, properties: { publicKey: k } }
moved:
  - { from: vpcs, to: nets }
`, `kyku.yaml:7:5: moved vpcs → nets (vpcs[0] → nets[0]): state has a Vpc, the configuration a SshKey; a move cannot change the type`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := w.stateBytes()
			_, err := e.Plan(t.Context(), parse(t, tt.yaml))
			if err == nil || err.Error() != tt.want {
				t.Errorf("plan error:\n%v\nwant:\n%s", err, tt.want)
			}
			if string(w.stateBytes()) != string(before) {
				t.Error("a refused plan changed the state")
			}
		})
	}
}

// TestMovedWholeResourceLeavesDeposedObjects: the objects a failed
// create-before-destroy replace left to destroy (keys[0]~deposed) are not
// instances: a whole move of keys moves keys[0] and keys[1] and the plan
// destroys the deposed ones where they are.
func TestMovedWholeResourceLeavesDeposedObjects(t *testing.T) {
	w := newWorld(t)
	const yaml = `
resources:
  NAME: { type: SshKey, count: 2, createBeforeDestroy: true, properties: { publicKey: "ssh-ed25519 AAAA KEY" } }
`
	at := func(name, key string) string { return strings.NewReplacer("NAME", name, "KEY", key).Replace(yaml) }
	mustApply(t, w.engine(), parse(t, at("keys", "old")))
	w.simOpts.Fail = []sim.FailRule{{Op: sim.OpDelete, Type: "SshKey", Name: "*"}}
	if res, err := w.engine().Apply(t.Context(), parse(t, at("keys", "new")), engine.ApplyOptions{AutoApprove: true}, nil); err != nil || len(res.Failed) != 2 {
		t.Fatalf("apply with deletes failing: %v, failed %v; want both destroy parts failed", err, res)
	}
	w.simOpts.Fail = nil
	e := w.engine()
	cfg := parse(t, at("ssh", "new")+"moved:\n  - { from: keys, to: ssh }\n")
	want := []string{"move SshKey ssh[0]", "move SshKey ssh[1]", "destroy SshKey " + plan.DeposedName("keys[0]"), "destroy SshKey " + plan.DeposedName("keys[1]")}
	if diff := cmp.Diff(want, actions(mustPlan(t, e, cfg))); diff != "" {
		t.Fatalf("plan (-want +got):\n%s", diff)
	}
	mustApply(t, e, cfg)
	if got := w.state().Names(); !cmp.Equal(got, []string{"ssh[0]", "ssh[1]"}) {
		t.Errorf("state after apply: %v", got)
	}
}
