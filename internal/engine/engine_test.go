package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/provider/sim"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// stack is a small config; replace substitutes into it.
const stack = `
provider: sim
resources:
  net:
    type: Vpc
    properties: { cidr: 10.0.0.0/16 }
  sg:
    type: SecurityGroup
    properties:
      network: "${net}"
      ingress: [ { port: 443, cidr: 0.0.0.0/0 } ]
  sub:
    type: Subnet
    properties: { network: "${net}", cidr: 10.0.1.0/24, zone: sim-a }
  web:
    type: Vm
    properties: { network: "${net}", subnet: "${sub}", securityGroups: [ "${sg}" ], size: small, image: debian-12, userData: "hunter2" }
  key:
    type: SshKey
    properties: { publicKey: "ssh-ed25519 AAAA test" }
outputs:
  webIp: "${web.publicIp}"
`

func variant(pairs ...string) string {
	return strings.NewReplacer(pairs...).Replace(stack)
}

func TestApplyThenPlanIsNoOp(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	cfg := parse(t, stack)
	p := mustPlan(t, e, cfg)
	if diff := cmp.Diff(plan.Counters{Create: 5}, p.Counters); diff != "" {
		t.Fatalf("first plan counters (-want +got):\n%s", diff)
	}
	res := mustApply(t, e, parse(t, stack))
	if len(res.Succeeded) != 5 || res.SerialAfter != res.SerialBefore+1 {
		t.Fatalf("apply: %d succeeded, serial %d → %d", len(res.Succeeded), res.SerialBefore, res.SerialAfter)
	}
	if res.BackupKey == "" {
		t.Error("no backup written before apply")
	}
	p = mustPlan(t, e, parse(t, stack))
	if diff := cmp.Diff(plan.Counters{NoOp: 5}, p.Counters); diff != "" {
		t.Fatalf("plan after apply (-want +got):\n%s", diff)
	}
	if p.HasChanges() {
		t.Error("HasChanges after apply")
	}
	want := []string{"SecurityGroup/test-sg", "SshKey/test-key", "Subnet/test-sub", "Vm/test-web", "Vpc/test-net"}
	if diff := cmp.Diff(want, w.cloud()); diff != "" {
		t.Errorf("cloud (-want +got):\n%s", diff)
	}
	// References were resolved to provider IDs, never Kyku names.
	st := w.state()
	web := st.Resources["web"]
	if web.Config["network"] != st.Resources["net"].ProviderID || web.Config["subnet"] != st.Resources["sub"].ProviderID {
		t.Errorf("web references not resolved to provider IDs: %v", web.Config)
	}
	if got := st.Outputs["webIp"]; got == nil || got != web.Outputs["publicIp"] {
		t.Errorf("output webIp = %v, want the Vm's publicIp %v", got, web.Outputs["publicIp"])
	}
}

func TestPlanKinds(t *testing.T) {
	tests := []struct {
		name  string
		next  string
		want  []string
		props []string // "path: old → new" of the first change
	}{
		{"mutable property is an update", variant("port: 443", "port: 8443"),
			[]string{"update SecurityGroup sg"}, []string{"ingress[0].port: 443 → 8443"}},
		{"immutable property is a replace", variant("image: debian-12", "image: debian-13"),
			[]string{"replace Vm web"}, []string{"image: debian-12 → debian-13"}},
		{"replace cascades through immutable references", variant("cidr: 10.0.0.0/16", "cidr: 10.1.0.0/16", "cidr: 10.0.1.0/24", "cidr: 10.1.1.0/24"),
			[]string{"replace Vpc net", "replace SecurityGroup sg", "replace Subnet sub", "update Vm web"}, []string{"cidr: 10.0.0.0/16 → 10.1.0.0/16"}},
		{"removed resource is a destroy", variant("  key:\n    type: SshKey\n    properties: { publicKey: \"ssh-ed25519 AAAA test\" }\n", ""),
			[]string{"destroy SshKey key"}, nil},
		{"added resource is a create", variant("outputs:", "  key2:\n    type: SshKey\n    properties: { publicKey: k2 }\noutputs:"),
			[]string{"create SshKey key2"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			e := w.engine()
			mustApply(t, e, parse(t, stack))
			p := mustPlan(t, e, parse(t, tt.next))
			if diff := cmp.Diff(tt.want, actions(p)); diff != "" {
				t.Fatalf("actions (-want +got):\n%s", diff)
			}
			if tt.props != nil {
				var got []string
				for _, c := range p.Changes {
					if c.Action != plan.NoOp {
						for _, pc := range c.Properties {
							got = append(got, pc.Path+": "+text(pc.Old)+" → "+text(pc.New))
						}
						break
					}
				}
				if diff := cmp.Diff(tt.props, got); diff != "" {
					t.Errorf("property changes (-want +got):\n%s", diff)
				}
			}
			// Applying converges: a second plan is all no-op.
			mustApply(t, e, parse(t, tt.next))
			if p := mustPlan(t, e, parse(t, tt.next)); p.HasChanges() {
				t.Errorf("after apply, plan still has changes: %v", actions(p))
			}
		})
	}
}

func text(v any) string {
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

func TestProtectAndIgnoreChanges(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	protected := strings.Replace(stack, "  key:\n", "  key:\n    protect: true\n", 1)
	mustApply(t, e, parse(t, protected))

	// Replacing a protected resource is refused, naming it.
	_, err := e.Plan(t.Context(), parse(t, strings.Replace(protected, "AAAA test", "BBBB other", 1)))
	if err == nil || !strings.Contains(err.Error(), `resource "key" is protected`) || !strings.Contains(err.Error(), "publicKey") {
		t.Fatalf("replace of protected resource: err = %v", err)
	}
	// Destroying it (removed from config) is refused too.
	noKey := variant("  key:\n    type: SshKey\n    properties: { publicKey: \"ssh-ed25519 AAAA test\" }\n", "")
	if _, err := e.Plan(t.Context(), parse(t, noKey)); err == nil || !strings.Contains(err.Error(), `"key" is protected`) {
		t.Fatalf("destroy of protected resource: err = %v", err)
	}
	if _, err := e.Destroy(t.Context(), engine.ApplyOptions{AutoApprove: true}); err == nil || !strings.Contains(err.Error(), "protected") {
		t.Fatalf("destroy all with a protected resource: err = %v", err)
	}
	if got := len(w.cloud()); got != 5 {
		t.Fatalf("refused destroy changed the cloud: %d objects", got)
	}

	// ignoreChanges: a change of size is not an update.
	ignoring := strings.Replace(stack, "  web:\n", "  web:\n    ignoreChanges: [ size ]\n", 1)
	w2 := newWorld(t)
	e2 := w2.engine()
	mustApply(t, e2, parse(t, ignoring))
	p := mustPlan(t, e2, parse(t, strings.Replace(ignoring, "size: small", "size: large", 1)))
	if p.HasChanges() {
		t.Errorf("size change with ignoreChanges: [size] planned %v", actions(p))
	}
	p = mustPlan(t, e2, parse(t, strings.Replace(stack, "size: small", "size: large", 1)))
	if diff := cmp.Diff([]string{"update Vm web"}, actions(p)); diff != "" {
		t.Errorf("size change without ignoreChanges (-want +got):\n%s", diff)
	}
}

func TestSavedPlan(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	next := variant("port: 443", "port: 8443")
	p := mustPlan(t, e, parse(t, next))
	data, err := plan.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := plan.Decode("plan.json", data)
	if err != nil {
		t.Fatal(err)
	}
	// A saved plan applies without the config.
	res, err := e.Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true}, saved)
	if err != nil || res.Err() != nil {
		t.Fatalf("apply saved plan: %v / %v", err, res.Err())
	}
	if diff := cmp.Diff([]string{"update SecurityGroup sg"}, names(res.Succeeded)); diff != "" {
		t.Errorf("applied (-want +got):\n%s", diff)
	}
	if p := mustPlan(t, e, parse(t, next)); p.HasChanges() {
		t.Errorf("after saved plan, changes remain: %v", actions(p))
	}
}

func names(rs []engine.ChangeResult) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Action.String()+" "+r.Type+" "+r.Name)
	}
	return out
}

func TestStaleSavedPlanRefused(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	p := mustPlan(t, e, parse(t, variant("port: 443", "port: 8443")))
	// The state moves on after the plan was made.
	mustApply(t, e, parse(t, variant("size: small", "size: medium")))
	before := w.stateBytes()
	cloud := w.cloud()

	_, err := e.Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true}, p)
	if !engine.IsStale(err) || !strings.Contains(err.Error(), "stale plan: state changed since it was planned; plan again") {
		t.Fatalf("stale plan: err = %v", err)
	}
	if !bytes.Equal(before, w.stateBytes()) {
		t.Error("refused plan changed the state")
	}
	if diff := cmp.Diff(cloud, w.cloud()); diff != "" {
		t.Errorf("refused plan changed the cloud:\n%s", diff)
	}

	// A plan whose config no longer matches the given config is refused too.
	p = mustPlan(t, e, parse(t, stack))
	if _, err := e.Apply(t.Context(), parse(t, variant("port: 443", "port: 1")), engine.ApplyOptions{AutoApprove: true}, p); !engine.IsStale(err) {
		t.Fatalf("config changed since plan: err = %v", err)
	}
	// A redacted plan cannot be applied.
	p.Config = nil
	p.Redacted = true
	if _, err := e.Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true}, p); err == nil || !strings.Contains(err.Error(), "redacted") {
		t.Fatalf("redacted plan: err = %v", err)
	}
}

func TestFailureSkipsDependentsOnly(t *testing.T) {
	w := newWorld(t)
	w.simOpts.Fail = []sim.FailRule{{Op: sim.OpCreate, Type: "Subnet", Name: "sub"}}
	e := w.engine()
	res, err := e.Apply(t.Context(), parse(t, stack), engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if diff := cmp.Diff([]string{"create Subnet sub"}, names(res.Failed)); diff != "" {
		t.Errorf("failed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"create Vm web"}, names(res.Skipped)); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if !strings.Contains(res.Skipped[0].Err.Error(), `dependency "sub" failed`) {
		t.Errorf("skip cause = %v", res.Skipped[0].Err)
	}
	if diff := cmp.Diff([]string{"create Vpc net", "create SecurityGroup sg", "create SshKey key"}, sortedNames(res.Succeeded)); diff != "" {
		t.Errorf("succeeded (-want +got):\n%s", diff)
	}
	if res.Err() == nil {
		t.Error("Err() is nil for a failed apply")
	}
	// The partial state was saved: the independent branch is in it.
	st := w.state()
	if diff := cmp.Diff([]string{"key", "net", "sg"}, st.Names()); diff != "" {
		t.Errorf("saved state (-want +got):\n%s", diff)
	}
	// Once the fault is gone, apply finishes the rest.
	w.simOpts.Fail = nil
	e = w.engine()
	if p := mustPlan(t, e, parse(t, stack)); strings.Join(actions(p), ",") != "create Subnet sub,create Vm web" {
		t.Errorf("plan after failure: %v", actions(p))
	}
	mustApply(t, e, parse(t, stack))
	if got := len(w.cloud()); got != 5 {
		t.Errorf("cloud has %d objects, want 5", got)
	}
}

func sortedNames(rs []engine.ChangeResult) []string {
	out := names(rs)
	order := map[string]int{"Vpc": 0, "SecurityGroup": 1, "SshKey": 2}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && order[strings.Fields(out[j])[1]] < order[strings.Fields(out[j-1])[1]]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func TestDestroyOrder(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	w.events.reset()
	res, err := e.Destroy(t.Context(), engine.ApplyOptions{AutoApprove: true})
	if err != nil || res.Err() != nil {
		t.Fatalf("destroy: %v / %v", err, res.Err())
	}
	if len(w.cloud()) != 0 {
		t.Fatalf("cloud not empty after destroy: %v", w.cloud())
	}
	if n := len(w.state().Resources); n != 0 {
		t.Fatalf("state has %d resources after destroy", n)
	}
	// Every resource finishes being destroyed before anything it depends on starts.
	pos := map[string]int{}
	for i, ev := range w.events.order(progress.Started, progress.Done) {
		pos[ev] = i
	}
	for _, edge := range [][2]string{{"web", "sub"}, {"web", "sg"}, {"web", "net"}, {"sub", "net"}, {"sg", "net"}} {
		if pos["done destroy "+edge[0]] > pos["started destroy "+edge[1]] {
			t.Errorf("%s was destroyed after %s started (it depends on it)", edge[0], edge[1])
		}
	}
}

func TestGoneFromCloudIsRecreated(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	deleteSimObject(t, w, "SshKey")
	p := mustPlanAll(t, e, parse(t, stack))
	if diff := cmp.Diff([]string{"create SshKey key"}, actions(p)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	mustApplyAll(t, e, parse(t, stack))
	if len(w.cloud()) != 5 {
		t.Errorf("cloud: %v", w.cloud())
	}
}

func TestRefreshReportsDrift(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	editSimObject(t, w, "SecurityGroup", func(props map[string]any) {
		props["ingress"].([]any)[0].(map[string]any)["port"] = 22
	})
	editSimObject(t, w, "Vm", func(props map[string]any) { props["userData"] = "changed-secret" })
	deleteSimObject(t, w, "SshKey")
	before := w.stateBytes()

	res, err := e.Refresh(t.Context(), engine.RefreshOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Drift {
		if d.Gone {
			got = append(got, d.Name+": gone")
		}
		for _, pc := range d.Properties {
			s := d.Name + ": " + pc.Path + ": " + text(pc.Old) + " → " + text(pc.New)
			if pc.Sensitive {
				s = d.Name + ": " + pc.Path + ": (sensitive)"
			}
			got = append(got, s)
		}
	}
	want := []string{"key: gone", "sg: ingress[0].port: 443 → 22", "web: userData: (sensitive)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("drift (-want +got):\n%s", diff)
	}
	if !bytes.Equal(before, w.stateBytes()) {
		t.Error("report-only refresh wrote the state")
	}
	res, err = e.Refresh(t.Context(), engine.RefreshOptions{WriteState: true})
	if err != nil || !res.Written || res.BackupKey == "" {
		t.Fatalf("refresh with write: %v written=%v backup=%q", err, res.Written, res.BackupKey)
	}
	if _, ok := w.state().Resources["key"]; ok {
		t.Error("gone resource kept in state after refresh")
	}
	if res, _ := e.Refresh(t.Context(), engine.RefreshOptions{}); res.HasDrift() {
		t.Errorf("drift after refresh wrote state: %+v", res.Drift)
	}
}

func TestTransientFaultsConverge(t *testing.T) {
	w := newWorld(t)
	w.simOpts.FailRate = 0.3
	w.simOpts.Seed = 7
	e := w.engine(func(o *engine.Options) { o.RetryAttempts = 20 })
	mustApply(t, e, parse(t, stack))
	if diff := cmp.Diff([]string{"SecurityGroup/test-sg", "SshKey/test-key", "Subnet/test-sub", "Vm/test-web", "Vpc/test-net"}, w.cloud()); diff != "" {
		t.Errorf("cloud after faulty apply, no duplicates expected (-want +got):\n%s", diff)
	}
	if len(w.events.order(progress.Retrying)) == 0 {
		t.Error("no retry was reported with a 30% fault rate")
	}
}

func TestInterruptedApplySavesFinishedChanges(t *testing.T) {
	w := newWorld(t)
	ctx, cancel := context.WithCancel(t.Context())
	var stopped bool
	hook := hookFunc(func(ev progress.Event) {
		if ev.Kind == progress.Done && ev.Name == "net" && !stopped {
			stopped = true
			cancel()
		}
	})
	e := w.engine(func(o *engine.Options) { o.Hook = hook; o.Parallelism = 1 })
	res, err := e.Apply(ctx, parse(t, stack), engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if !res.Interrupted || res.Err() == nil {
		t.Fatalf("interrupted = %v, err = %v", res.Interrupted, res.Err())
	}
	st := w.state()
	if _, ok := st.Resources["net"]; !ok {
		t.Fatal("finished change lost after interrupt")
	}
	if len(st.Resources) != len(res.Succeeded) {
		t.Errorf("state has %d resources, %d succeeded", len(st.Resources), len(res.Succeeded))
	}
	// The lock was released: the next apply runs and converges.
	e = w.engine()
	mustApply(t, e, parse(t, stack))
	if len(w.cloud()) != 5 {
		t.Errorf("cloud: %v", w.cloud())
	}
}

type hookFunc func(progress.Event)

func (f hookFunc) Event(e progress.Event) { f(e) }

func TestConfirmDeclinedChangesNothing(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	_, err := e.Apply(t.Context(), parse(t, stack), engine.ApplyOptions{
		Confirm: func(*plan.Plan) (bool, error) { return false, nil },
	}, nil)
	if !errors.Is(err, engine.ErrNotConfirmed) {
		t.Fatalf("err = %v", err)
	}
	if len(w.cloud()) != 0 {
		t.Errorf("declined apply created %v", w.cloud())
	}
}
