package leasetest_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

// TestSavedPlanStaleOnlyWhenItsObjectsChanged: plans A (t0) and C (t1)
// are made on the same state; B then applies a change to t1. A still
// applies (B changed nothing it touches), changes only t0, and B's t1
// survives although A's branch still has the old t1 (never reverted); C,
// which touches t1, is stale, naming t1, and changes nothing.
func TestSavedPlanStaleOnlyWhenItsObjectsChanged(t *testing.T) {
	w := newWorld(t)
	e := w.engine(true)
	mustApply(t, e, groups(t, 3, nil), nil)
	planA := savedPlan(t, e, groups(t, 3, map[int]int{0: 9000}))
	planC := savedPlan(t, e, groups(t, 3, map[int]int{1: 7001}))
	mustApply(t, w.engine(true), groups(t, 3, map[int]int{1: 9001}), nil)

	res := mustApply(t, w.engine(true), nil, planA)
	var applied []string
	for _, c := range res.Succeeded {
		applied = append(applied, c.Action.String()+" "+c.Name)
	}
	if diff := cmp.Diff([]string{"update t0"}, applied); diff != "" {
		t.Errorf("plan A applied (-want +got):\n%s", diff)
	}
	st := w.state()
	want := map[string]any{"t0": float64(9000), "t1": float64(9001), "t2": float64(8002)}
	for n, port := range want {
		if got := st.Resources[n].Config["port"]; got != port {
			t.Errorf("state %s port = %v, want %v", n, got, port)
		}
	}
	if diff := cmp.Diff(w.cloud(), stateObjects(st)); diff != "" {
		t.Errorf("state differs from the cloud (-cloud +state):\n%s", diff)
	}

	serial := st.Metadata.Serial
	_, err := apply(t, w.engine(true), nil, planC)
	if !engine.IsStale(err) || !strings.Contains(err.Error(), `"t1" changed since it was planned`) {
		t.Fatalf("apply of C = %v, want stale naming t1", err)
	}
	if got := w.state(); got.Metadata.Serial != serial || got.Resources["t1"].Config["port"] != float64(9001) {
		t.Errorf("the stale plan changed the state: serial %d → %d, t1 port %v", serial, got.Metadata.Serial, got.Resources["t1"].Config["port"])
	}
}

// TestEditedObjectVersionsDoNotMakeAStalePlanApply: a plan file is
// anyone's to edit. Plan C (t1) is made, another apply changes t1, and
// C's recorded versions are edited to the current ones: the apply plans
// C's changes again against the state as it is, finds other changes than
// the file lists, and refuses, changing nothing.
func TestEditedObjectVersionsDoNotMakeAStalePlanApply(t *testing.T) {
	w := newWorld(t)
	e := w.engine(true)
	mustApply(t, e, groups(t, 2, nil), nil)
	planC := savedPlan(t, e, groups(t, 2, map[int]int{1: 7001}))
	mustApply(t, w.engine(true), groups(t, 2, map[int]int{1: 9001}), nil)
	st := w.state()
	for n := range planC.Objects {
		planC.Objects[n] = lease.Digest(st, n)
	}
	_, err := apply(t, w.engine(true), nil, planC)
	if !engine.IsMismatch(err) || !strings.Contains(err.Error(), `"t1"`) {
		t.Fatalf("apply of the edited plan = %v, want a mismatch naming t1", err)
	}
	if got := w.state(); got.Metadata.Serial != st.Metadata.Serial {
		t.Errorf("the refused plan wrote the state: serial %d → %d", st.Metadata.Serial, got.Metadata.Serial)
	}
}

// TestPublishedPlanKeepsNoObjectVersions: the versions a leased plan
// records are digests of state records, secrets in: the plan.json
// published (render.RedactPlan) leaves them out, as it does the digests
// of the variables.
func TestPublishedPlanKeepsNoObjectVersions(t *testing.T) {
	w := newWorld(t)
	e := w.engine(true)
	mustApply(t, e, groups(t, 1, nil), nil)
	p := savedPlan(t, e, groups(t, 1, map[int]int{0: 9000}))
	if len(p.Objects) == 0 {
		t.Fatal("the leased plan records no object versions")
	}
	if got := render.RedactPlan(p).Objects; got != nil {
		t.Errorf("the published plan keeps object versions: %v", got)
	}
}

// TestPlanSeesWhatAKilledApplyFinished: an apply that created t1 was
// killed before writing the state; its journal records t1. A plan made
// before any other apply recovers that journal plans on it (t1 is there:
// nothing to do), and does not offer to create t1 a second time.
func TestPlanSeesWhatAKilledApplyFinished(t *testing.T) {
	w := newWorld(t)
	e := w.engine(true)
	mustApply(t, e, groups(t, 2, nil), nil)
	b := w.backend()
	st, err := b.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t1 := st.Resources["t1"]
	delete(st.Resources, "t1") // as the state was before the killed apply
	st.Metadata.Serial++
	if err := b.Write(t.Context(), st, statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	dead := lease.New(b, "", w.leases).Journal("dead-run", func(string) string { return "" })
	if err := dead.Append(t.Context(), state.Entry{Seq: 1, Lineage: st.Metadata.Lineage, Op: state.OpPut, Name: "t1", Resource: t1}); err != nil {
		t.Fatal(err)
	}
	p, err := w.engine(true).Plan(t.Context(), groups(t, 2, nil))
	if err != nil {
		t.Fatal(err)
	}
	if p.HasChanges() {
		t.Errorf("the plan offers changes for what the killed apply finished: %+v", p.Changes)
	}
}
