package engine_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider/sim"
)

// moved is the stack with a second network for the security group: the
// group is replaced (its network cannot change), the Vm that stays in it
// is updated.
var moved = variant(
	"  sg:\n", "  net2:\n    type: Vpc\n    properties: { cidr: 10.9.0.0/16 }\n  sg:\n",
	`      network: "${net}"
      ingress`, `      network: "${net2}"
      ingress`,
)

// orders are the replaces of p as "name order prior → cloud name".
func orders(p *plan.Plan) []string {
	var out []string
	for _, c := range p.Changes {
		if c.Action == plan.Replace {
			out = append(out, c.ResourceID+" "+c.ReplaceOrder.String()+" "+c.PriorCloudName+" → "+c.CloudName)
		}
	}
	return out
}

// A replaced security group that a Vm that stays still uses cannot be
// destroyed first: the (strict) sim, like EC2 and Hetzner, refuses to
// delete a group in use. The provider asks for create-before-destroy, so
// the plan says it: the replacement is made under another cloud name, the
// Vm moves to it, then the old group goes.
func TestReplaceUsedByWhatStaysCreatesFirst(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	p := mustPlan(t, e, parse(t, moved))
	if diff := cmp.Diff([]string{"create Vpc net2", "replace SecurityGroup sg", "update Vm web"}, actions(p)); diff != "" {
		t.Fatalf("actions (-want +got):\n%s", diff)
	}
	if o := orders(p); len(o) != 1 || !regexp.MustCompile(`^sg create-before-destroy test-sg → test-sg-[0-9a-f]{6}$`).MatchString(o[0]) {
		t.Fatalf("replace order %q; want sg create-before-destroy, the replacement named test-sg-<6 hex digits>", o)
	}
	again := mustPlan(t, e, parse(t, moved))
	if diff := cmp.Diff(orders(p), orders(again)); diff != "" {
		t.Errorf("a second plan names the replacement otherwise (-first +second):\n%s", diff)
	}
	res := mustApply(t, e, parse(t, moved))
	if len(res.Skipped) > 0 || len(res.Failed) > 0 {
		t.Fatalf("apply: %d failed, %d skipped", len(res.Failed), len(res.Skipped))
	}
	if p := mustPlan(t, e, parse(t, moved)); p.HasChanges() {
		t.Errorf("after apply: %v", actions(p))
	}
	cloud := strings.Join(w.cloud(), " ")
	if strings.Contains(cloud, "SecurityGroup/test-sg ") || !strings.Contains(cloud, "SecurityGroup/test-sg-") {
		t.Errorf("cloud %s: want the replacement only", cloud)
	}
	st := w.state()
	if st.Resources[plan.DeposedName("sg")] != nil || st.Resources["web"].Config["securityGroups"].([]any)[0] != st.Resources["sg"].ProviderID {
		t.Errorf("state: %v; want web in the new group and nothing deposed", st.Names())
	}
	// Replaced again, it gets its own name back.
	back := mustPlan(t, e, parse(t, stack))
	if o := orders(back); len(o) != 1 || !regexp.MustCompile(`^sg create-before-destroy test-sg-[0-9a-f]{6} → test-sg$`).MatchString(o[0]) {
		t.Errorf("replace back: %q; want the name test-sg again", o)
	}
	mustApply(t, e, parse(t, stack))
}

// Without a resource that stays using it, a replace destroys first and
// keeps the cloud name (nothing is in the way).
func TestReplaceUsedByNothingDestroysFirst(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	lone := strings.Replace(moved, `securityGroups: [ "${sg}" ], `, "", 1)
	mustApply(t, e, parse(t, strings.Replace(stack, `securityGroups: [ "${sg}" ], `, "", 1)))
	p := mustPlan(t, e, parse(t, lone))
	if diff := cmp.Diff([]string{"sg destroy-before-create  → test-sg"}, orders(p)); diff != "" {
		t.Fatalf("replace order (-want +got):\n%s", diff)
	}
	mustApply(t, e, parse(t, lone))
}

// An apply interrupted between the replacement and the old object's
// destroy (here: the Vm's move fails) loses nothing: state keeps the old
// object as deposed, and the next plan destroys it after the Vm moved.
func TestReplaceCreatedFirstThenInterrupted(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(), parse(t, stack))
	w.simOpts.Fail = []sim.FailRule{{Op: sim.OpUpdate, Type: "Vm", Name: "web"}}
	res, err := w.engine().Apply(t.Context(), parse(t, moved), engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed) != 1 || len(res.Skipped) != 1 || res.Skipped[0].Name != "sg" {
		t.Fatalf("failed %v, skipped %v; want web failed and sg's destroy skipped", res.Failed, res.Skipped)
	}
	st := w.state()
	old := st.Resources[plan.DeposedName("sg")]
	if old == nil || old.CloudName != "test-sg" || st.Resources["sg"].CloudName == "test-sg" {
		t.Fatalf("state %v: want sg the replacement and the old group deposed", st.Names())
	}
	w.simOpts.Fail = nil
	e := w.engine()
	p := mustPlan(t, e, parse(t, moved))
	if diff := cmp.Diff([]string{"update Vm web", "destroy SecurityGroup " + plan.DeposedName("sg")}, actions(p)); diff != "" {
		t.Fatalf("plan after the interruption (-want +got):\n%s", diff)
	}
	mustApply(t, e, parse(t, moved))
	if p := mustPlan(t, e, parse(t, moved)); p.HasChanges() {
		t.Errorf("after apply: %v", actions(p))
	}
	if c := strings.Join(w.cloud(), " "); strings.Contains(c, "SecurityGroup/test-sg ") {
		t.Errorf("the old group is left: %s", c)
	}
}

// What a replacement made first depends on and is replaced too is made
// first as well (as Terraform's create_before_destroy spreads): else the
// network's destroy would wait for the group's, which waits for the
// group's replacement, which waits for the network's. All replaced
// create-before-destroy, the apply converges.
func TestCreateBeforeDestroySpreadsToDependencies(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	next := variant("cidr: 10.0.0.0/16", "cidr: 10.1.0.0/16", "cidr: 10.0.1.0/24", "cidr: 10.1.1.0/24")
	p := mustPlan(t, e, parse(t, next))
	for _, c := range p.Changes {
		if c.Action == plan.Replace && c.ReplaceOrder != plan.CreateBeforeDestroy {
			t.Errorf("%s is replaced %s", c.ResourceID, c.ReplaceOrder)
		}
	}
	res := mustApply(t, e, parse(t, next))
	if len(res.Skipped) > 0 || len(res.Succeeded) != 4 {
		t.Fatalf("apply: %d succeeded, %d skipped", len(res.Succeeded), len(res.Skipped))
	}
	if p := mustPlan(t, e, parse(t, next)); p.HasChanges() {
		t.Errorf("after apply: %v", actions(p))
	}
}

// createBeforeDestroy: true (Terraform's lifecycle create_before_destroy)
// makes a replace create first although nothing that stays uses the
// object and the provider does not ask: the plan says so, the replacement
// gets another cloud name, and an apply whose destroy part fails (the
// replacement was made before it) keeps the old object as deposed. The
// next plan destroys it. Without the setting the same change destroys
// first.
func TestDeclaredCreateBeforeDestroy(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	rotated := variant(`publicKey: "ssh-ed25519 AAAA test"`, `publicKey: "ssh-ed25519 AAAA rotated"`)
	if diff := cmp.Diff([]string{"key destroy-before-create  → test-key"}, orders(mustPlan(t, e, parse(t, rotated)))); diff != "" {
		t.Fatalf("without createBeforeDestroy (-want +got):\n%s", diff)
	}
	declared := strings.Replace(rotated, "    type: SshKey\n", "    type: SshKey\n    createBeforeDestroy: true\n", 1)
	p := mustPlan(t, e, parse(t, declared))
	if o := orders(p); len(o) != 1 || !regexp.MustCompile(`^key create-before-destroy test-key → test-key-[0-9a-f]{6}$`).MatchString(o[0]) {
		t.Fatalf("replace order %q; want key create-before-destroy, the replacement named test-key-<6 hex digits>", o)
	}

	w.simOpts.Fail = []sim.FailRule{{Op: sim.OpDelete, Type: "SshKey", Name: "*"}}
	res, err := w.engine().Apply(t.Context(), parse(t, declared), engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed) != 1 || res.Failed[0].Name != "key" {
		t.Fatalf("failed %v; want key's destroy part", res.Failed)
	}
	st := w.state()
	old, repl := st.Resources[plan.DeposedName("key")], st.Resources["key"]
	if old == nil || repl == nil || old.CloudName != "test-key" || repl.Config["publicKey"] != "ssh-ed25519 AAAA rotated" {
		t.Fatalf("state %v: want key the replacement (made first) and the old key deposed", st.Names())
	}
	w.simOpts.Fail = nil
	e = w.engine()
	if diff := cmp.Diff([]string{"destroy SshKey " + plan.DeposedName("key")}, actions(mustPlan(t, e, parse(t, declared)))); diff != "" {
		t.Fatalf("plan after the failed destroy (-want +got):\n%s", diff)
	}
	mustApply(t, e, parse(t, declared))
	if p := mustPlan(t, e, parse(t, declared)); p.HasChanges() {
		t.Errorf("after apply: %v", actions(p))
	}
}
