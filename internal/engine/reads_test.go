package engine_test

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
)

// readNames are the resources a plan read (not marked NotRead), sorted.
func readNames(p *plan.Plan) []string {
	var out []string
	for _, c := range p.Changes {
		if !c.NotRead {
			out = append(out, c.ResourceID)
		}
	}
	sort.Strings(out)
	return out
}

// A plan reads what the change touches and takes the rest from state:
// no read, no provider plan, marked NotRead with when it was last read.
func TestPlanReadsWhatTheChangeTouches(t *testing.T) {
	for _, tc := range []struct {
		name    string
		config  string
		refresh engine.RefreshMode
		read    []string // resources read (and planned by their provider)
		actions []string
		reads   int // objects read from the cloud
	}{
		{name: "nothing changed", config: stack},
		{
			name:    "a resource nothing reads from",
			config:  variant("AAAA test", "BBBB other"),
			read:    []string{"key"},
			actions: []string{"replace SshKey key"},
			reads:   1,
		},
		{
			// web reads from sg, which changes: web is read and planned
			// too; what they read from (net, sub) is read, not planned.
			name:    "a resource others read from",
			config:  variant("port: 443", "port: 8443"),
			read:    []string{"net", "sg", "sub", "web"},
			actions: []string{"update SecurityGroup sg"},
			reads:   4,
		},
		{
			name:    "--refresh=all",
			config:  stack,
			refresh: engine.RefreshAll,
			read:    []string{"key", "net", "sg", "sub", "web"},
			reads:   5,
		},
		{
			name:    "--refresh=none",
			config:  variant("port: 443", "port: 8443"),
			refresh: engine.RefreshNone,
			actions: []string{"update SecurityGroup sg"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			mustApply(t, w.engine(), parse(t, stack))
			p, counter := w.openSim(false)
			pl, err := w.simEngine(p).PlanWith(t.Context(), parse(t, tc.config), engine.PlanOptions{Refresh: tc.refresh})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.actions, actions(pl)); d != "" {
				t.Errorf("actions (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.read, readNames(pl)); d != "" {
				t.Errorf("read (-want +got):\n%s", d)
			}
			if got := counter.Calls().Read; got != int64(tc.reads) {
				t.Errorf("%d reads from the cloud, want %d", got, tc.reads)
			}
			want := &plan.Reads{Refresh: tc.refresh.String(), Read: tc.reads, Objects: 5}
			if d := cmp.Diff(want, pl.Reads); d != "" {
				t.Errorf("plan.Reads (-want +got):\n%s", d)
			}
			for _, c := range pl.Changes {
				if c.NotRead && (c.LastRead == nil || c.LastRead.IsZero()) {
					t.Errorf("%s: not read, and no time it was last read", c.ResourceID)
				}
			}
		})
	}
}

// What an apply changed, and what its plan read, is recorded: the next
// plan of the same configuration reads nothing.
func TestPlanAfterApplyReadsNothing(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(), parse(t, stack))
	changed := variant("port: 443", "port: 8443", "AAAA test", "BBBB other")
	mustApply(t, w.engine(), parse(t, changed))
	p, counter := w.openSim(false)
	pl := mustPlan(t, w.simEngine(p), parse(t, changed))
	if got := readNames(pl); len(got) != 0 || counter.Calls().Read != 0 || pl.HasChanges() {
		t.Errorf("plan after apply read %v (%d reads), changes %v; want nothing read, no change", got, counter.Calls().Read, actions(pl))
	}
}

// TestPlanAfterApplyReadsNothingWithAutoSubnets: the subnets a Vpc's
// distributeAcrossAzs injects are judged unchanged like every other
// resource (they were once read, and everything reading them with them).
func TestPlanAfterApplyReadsNothingWithAutoSubnets(t *testing.T) {
	w := newWorld(t)
	cfg := variant("properties: { cidr: 10.0.0.0/16 }", "properties: { cidr: 10.0.0.0/16, distributeAcrossAzs: 2 }", "10.0.1.0/24", "10.0.200.0/24")
	mustApply(t, w.engine(), parse(t, cfg))
	p, counter := w.openSim(false)
	pl := mustPlan(t, w.simEngine(p), parse(t, cfg))
	if got := readNames(pl); len(got) != 0 || counter.Calls().Read != 0 || pl.HasChanges() {
		t.Errorf("plan after apply read %v (%d reads), changes %v; want nothing read, no change", got, counter.Calls().Read, actions(pl))
	}
	if pl.Reads == nil || pl.Reads.Objects < 7 || pl.Reads.Read != 0 {
		t.Errorf("reads %+v: want the auto-subnets counted among the objects", pl.Reads)
	}
}

// Drift in an object the change does not touch never changes the plan's
// actions; drift in one it touches is found.
func TestDriftAndWhatThePlanReads(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(), parse(t, stack))
	editSimObject(t, w, "Vm", func(props map[string]any) { props["size"] = "large" })
	editSimObject(t, w, "Vpc", func(props map[string]any) { props["distributeAcrossAzs"] = 2 })
	editSimObject(t, w, "SecurityGroup", func(props map[string]any) {
		props["ingress"].([]any)[0].(map[string]any)["port"] = 22
	})
	e := w.engine()

	untouched := mustPlan(t, e, parse(t, variant("AAAA test", "BBBB other")))
	if d := cmp.Diff([]string{"replace SshKey key"}, actions(untouched)); d != "" {
		t.Errorf("drifted web and sg untouched: actions (-want +got):\n%s", d)
	}
	all := mustPlanAll(t, e, parse(t, variant("AAAA test", "BBBB other")))
	if got := actions(all); !slices.Contains(got, "update Vm web") {
		t.Fatalf("--refresh=all: %v, want the drift of web found (the test's drift is real)", got)
	}

	touched := mustPlan(t, e, parse(t, variant("port: 443", "port: 8443")))
	var sg *plan.Change
	for i := range touched.Changes {
		if touched.Changes[i].ResourceID == "sg" {
			sg = &touched.Changes[i]
		}
	}
	if sg == nil || sg.NotRead || len(sg.Properties) == 0 || sg.Properties[0].Path != "ingress[0].port" || sg.Properties[0].Old != 22.0 {
		t.Fatalf("sg's change %+v: want the cloud's port 22 as its old value", sg)
	}
	if got := actions(touched); !slices.Contains(got, "update Vm web") {
		t.Errorf("web reads from sg, which changes: it is read, and its drift found: %v", got)
	}
	if got := actions(touched); !slices.Contains(got, "update Vpc net") {
		t.Errorf("sg reads from net: it is read, and its drift found: %v", got)
	}
}

// Apply reads each object it changes just before changing it, and refuses
// when the cloud moved since the plan, naming the object and what
// differs; nothing is changed for it.
func TestApplyRefusesWhatMovedSincePlan(t *testing.T) {
	for _, tc := range []struct {
		name, config, typ, want string
	}{
		{"update", variant("port: 443", "port: 8443"), "SecurityGroup", `refused to update SecurityGroup "sg": the cloud moved since the plan (its ingress changed)`},
		{"destroy", strings.Replace(stack, "  key:\n    type: SshKey\n    properties: { publicKey: \"ssh-ed25519 AAAA test\" }\n", "", 1), "SshKey",
			`refused to destroy SshKey "key": the cloud moved since the plan (its publicKey changed)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			mustApply(t, w.engine(), parse(t, stack))
			move := func(*plan.Plan) (bool, error) { // after the plan, before the change
				editSimObject(t, w, tc.typ, func(props map[string]any) {
					if tc.typ == "SshKey" {
						props["publicKey"] = "ssh-ed25519 CCCC moved"
						return
					}
					props["ingress"].([]any)[0].(map[string]any)["cidr"] = "10.9.0.0/16"
				})
				return true, nil
			}
			res, err := w.engine().Apply(t.Context(), parse(t, tc.config), engine.ApplyOptions{Confirm: move}, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = res.Err()
			if !engine.IsMoved(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("apply: %v\nwant: %s", err, tc.want)
			}
			if got := w.cloud(); !slices.Contains(got, tc.typ+"/test-"+map[string]string{"SshKey": "key", "SecurityGroup": "sg"}[tc.typ]) {
				t.Errorf("cloud %v: the object was changed", got)
			}
		})
	}
}

// A plan that read nothing (--refresh=none) applies when the cloud is as
// state has it, and is refused when the object it changes drifted.
func TestApplyOfPlanWithoutReads(t *testing.T) {
	for _, drift := range []bool{false, true} {
		t.Run(map[bool]string{false: "as in state", true: "drifted"}[drift], func(t *testing.T) {
			w := newWorld(t)
			mustApply(t, w.engine(), parse(t, stack))
			if drift {
				editSimObject(t, w, "SecurityGroup", func(props map[string]any) {
					props["ingress"].([]any)[0].(map[string]any)["cidr"] = "10.9.0.0/16"
				})
			}
			res, err := w.engine().Apply(t.Context(), parse(t, variant("port: 443", "port: 8443")), engine.ApplyOptions{AutoApprove: true, Refresh: engine.RefreshNone}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := engine.IsMoved(res.Err()); got != drift {
				t.Fatalf("apply: %v; want refused: %v", res.Err(), drift)
			}
		})
	}
}

// The drift schedule (Refresh) reads every object: drift a plan leaves
// alone, untouched, is reported there.
func TestDriftScheduleReadsEverything(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(), parse(t, stack))
	editSimObject(t, w, "Vm", func(props map[string]any) { props["size"] = "large" })
	if p := mustPlan(t, w.engine(), parse(t, stack)); p.HasChanges() || len(readNames(p)) != 0 {
		t.Fatalf("plan of the unchanged configuration: %v, read %v; want nothing", actions(p), readNames(p))
	}
	p, counter := w.openSim(false)
	res, err := w.simEngine(p).Refresh(t.Context(), engine.RefreshOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Checked != 5 || counter.Calls().Read != 5 || len(res.Drift) != 1 || res.Drift[0].Name != "web" {
		t.Errorf("refresh: checked %d, %d reads, drift %+v; want all 5 read and web's drift", res.Checked, counter.Calls().Read, res.Drift)
	}
}

// Objects last applied by another version of their provider (for Kyku's
// own types, Kyku) are read and planned again.
func TestPlanReadsAgainAfterAnUpgrade(t *testing.T) {
	w := newWorld(t)
	version := func(v string) func(*engine.Options) { return func(o *engine.Options) { o.Version = v } }
	mustApply(t, w.engine(version("v1.0.0")), parse(t, stack))
	if got := readNames(mustPlan(t, w.engine(version("v1.0.0")), parse(t, stack))); len(got) != 0 {
		t.Errorf("same version: read %v, want nothing", got)
	}
	want := []string{"key", "net", "sg", "sub", "web"}
	if d := cmp.Diff(want, readNames(mustPlan(t, w.engine(version("v1.1.0")), parse(t, stack)))); d != "" {
		t.Errorf("another version: read (-want +got):\n%s", d)
	}
}
