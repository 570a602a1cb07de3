package engine_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/state"
)

// A read error other than "not found" aborts the plan, naming the resource.
func TestDiscoveryErrorAbortsPlan(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(), parse(t, stack))
	w.simOpts.Fail = []sim.FailRule{{Op: sim.OpRead, Type: "Vm", Name: "web"}}
	_, err := w.engine().PlanWith(t.Context(), parse(t, stack), engine.PlanOptions{Refresh: engine.RefreshAll})
	if err == nil || !strings.Contains(err.Error(), `read Vm "web"`) {
		t.Fatalf("err = %v, want it to name the Vm", err)
	}
}

// Destroy resolves a stale, non-numeric provider ID (a Kyku name recorded
// by an early version) by name before deleting.
func TestDestroyResolvesStaleProviderID(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(), parse(t, stack))
	path := filepath.Join(w.stateDir, "state.json")
	st := w.state()
	st.Resources["key"].ProviderID = "key" // the Kyku name, not the sim's ID
	data, err := state.Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := w.engine().Destroy(t.Context(), engine.ApplyOptions{AutoApprove: true})
	if err != nil || res.Err() != nil {
		t.Fatalf("destroy: %v / %v", err, res.Err())
	}
	if got := w.cloud(); len(got) != 0 {
		t.Errorf("cloud after destroy: %v (the SshKey with a stale ID was not found by name)", got)
	}
}

// Destroy retries transient failures and verifies the deletion.
func TestDestroyRetriesTransientFailures(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(), parse(t, stack))
	w.simOpts.FailRate, w.simOpts.Seed = 0.4, 3
	e := w.engine(func(o *engine.Options) { o.DestroyAttempts = 30; o.RetryAttempts = 30 })
	res, err := e.Destroy(t.Context(), engine.ApplyOptions{AutoApprove: true})
	if err != nil || res.Err() != nil {
		t.Fatalf("destroy: %v / %v", err, res.Err())
	}
	if got := w.cloud(); len(got) != 0 {
		t.Errorf("cloud after destroy: %v", got)
	}
}

// A journal left by a crashed apply is folded into the state by the next
// run: finished changes are not lost.
func TestJournalRecoveredByNextRun(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(), parse(t, stack))
	st := w.state()
	// A crashed apply journaled a destroy of "key" (it is gone from the
	// cloud) and an update of "sg", but never folded them.
	deleteSimObject(t, w, "SshKey")
	sg := st.Resources["sg"].Clone()
	sg.Outputs = map[string]any{"id": sg.ProviderID, "note": "journaled"}
	entries := []state.Entry{
		{Seq: 1, BaseSerial: st.Metadata.Serial, Lineage: st.Metadata.Lineage, Op: state.OpDelete, Name: "key"},
		{Seq: 2, BaseSerial: st.Metadata.Serial, Lineage: st.Metadata.Lineage, Op: state.OpPut, Name: "sg", Resource: sg},
	}
	var lines []byte
	for _, e := range entries {
		b, _ := json.Marshal(e)
		lines = append(append(lines, b...), '\n')
	}
	if err := os.WriteFile(filepath.Join(w.stateDir, "state.journal"), lines, 0o600); err != nil {
		t.Fatal(err)
	}
	st2, err := w.engine().ReadState(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st2.Resources["key"]; ok {
		t.Error("journaled destroy not folded")
	}
	if st2.Resources["sg"].Outputs["note"] != "journaled" {
		t.Error("journaled update not folded")
	}
	if st2.Metadata.Serial != st.Metadata.Serial+1 {
		t.Errorf("serial %d after recovery, want %d", st2.Metadata.Serial, st.Metadata.Serial+1)
	}
	// Reading folds in memory only; the next apply persists the fold (the
	// same serial a plan in between recorded) and clears the journal.
	if got := w.state().Metadata.Serial; got != st.Metadata.Serial {
		t.Errorf("ReadState wrote the state: serial %d on disk, want %d", got, st.Metadata.Serial)
	}
	p := mustPlan(t, w.engine(), parse(t, stack))
	if p.Serial != st.Metadata.Serial+1 {
		t.Errorf("plan recorded serial %d, want the folded %d", p.Serial, st.Metadata.Serial+1)
	}
	if res, err := w.engine().Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true}, p); err != nil || res.Err() != nil {
		t.Fatalf("apply of a plan made over a journal: %v / %v", err, res.Err())
	}
	if _, err := os.Stat(filepath.Join(w.stateDir, "state.journal")); !os.IsNotExist(err) {
		t.Error("journal not cleared after folding")
	}
	if got := w.state().Metadata.Serial; got != st.Metadata.Serial+2 {
		t.Errorf("serial %d after the apply, want %d (fold, then apply)", got, st.Metadata.Serial+2)
	}
}

// Changing a resource's type replaces it: the old object (of the old type)
// is destroyed and one of the new type created.
func TestTypeChangeReplaces(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	changed := strings.Replace(stack, "  key:\n    type: SshKey\n    properties: { publicKey: \"ssh-ed25519 AAAA test\" }\n",
		"  key:\n    type: Vpc\n    properties: { cidr: 10.9.0.0/16 }\n", 1)
	p := mustPlan(t, e, parse(t, changed))
	if got := strings.Join(actions(p), ","); got != "replace Vpc key" {
		t.Fatalf("plan: %s", got)
	}
	mustApply(t, e, parse(t, changed))
	cloud := strings.Join(w.cloud(), ",")
	if strings.Contains(cloud, "SshKey/") || !strings.Contains(cloud, "Vpc/test-key") {
		t.Errorf("cloud after type change: %s", cloud)
	}
	if p := mustPlan(t, e, parse(t, changed)); p.HasChanges() {
		t.Errorf("changes remain: %v", actions(p))
	}
	// Destroy clears the outputs with the resources.
	if _, err := e.Destroy(t.Context(), engine.ApplyOptions{AutoApprove: true}); err != nil {
		t.Fatal(err)
	}
	if st := w.state(); len(st.Outputs) != 0 {
		t.Errorf("outputs after destroy: %v", st.Outputs)
	}
}

// Outputs that changed in the cloud (a Vm's public IP) on an unchanged
// resource are recorded by the next apply, so `kyku output` is not stale.
func TestApplyRecordsRefreshedOutputs(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	f := simFile(t, w, "Vm")
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var o map[string]any
	if err := json.Unmarshal(data, &o); err != nil {
		t.Fatal(err)
	}
	o["outputs"].(map[string]any)["publicIp"] = "203.0.113.99"
	data, _ = json.Marshal(o)
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	p := mustPlanAll(t, e, parse(t, stack))
	if p.HasChanges() {
		t.Fatalf("a new IP is not a change to apply: %v", actions(p))
	}
	res := mustApplyAll(t, e, parse(t, stack))
	if got := res.Outputs["webIp"]; got != "203.0.113.99" {
		t.Errorf("webIp after apply = %v, want the cloud's new IP", got)
	}
	outs, _, err := e.Outputs(t.Context(), parse(t, stack))
	if err != nil || outs["webIp"] != "203.0.113.99" {
		t.Errorf("Outputs = %v, %v", outs, err)
	}
}
