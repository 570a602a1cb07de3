package lease_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/state"
)

func res(name string, port float64) *state.Resource {
	return &state.Resource{Name: name, Type: "TargetGroup", ProviderID: "id-" + name, Config: map[string]any{"port": port}}
}

// TestFoldKeepsWhatAnotherApplyChangedSince: a dead run's journal is
// folded only for objects still as it found them; an object another apply
// changed since (after the dead run's lease went stale) keeps that
// apply's change; folding twice changes nothing more.
func TestFoldKeepsWhatAnotherApplyChangedSince(t *testing.T) {
	base := state.New("p", "lin", "")
	base.Resources["a"], base.Resources["b"] = res("a", 1), res("b", 1)
	prior := map[string]string{"a": lease.Digest(base, "a"), "b": lease.Digest(base, "b")}
	recs := []lease.Record{
		{Entry: state.Entry{Seq: 1, Lineage: "lin", Op: state.OpPut, Name: "a", Resource: res("a", 2)}, Prior: map[string]string{"a": prior["a"]}},
		{Entry: state.Entry{Seq: 2, Lineage: "lin", Op: state.OpPut, Name: "a", Resource: res("a", 3)}, Prior: map[string]string{"a": prior["a"]}},
		{Entry: state.Entry{Seq: 3, Lineage: "lin", Op: state.OpPut, Name: "b", Resource: res("b", 2)}, Prior: map[string]string{"b": prior["b"]}},
	}
	cur := base.Clone()
	cur.Resources["b"] = res("b", 9) // another apply's, after the run died
	if !lease.Fold(cur, recs) {
		t.Fatal("Fold changed nothing")
	}
	got := map[string]any{"a": cur.Resources["a"].Config["port"], "b": cur.Resources["b"].Config["port"]}
	if diff := cmp.Diff(map[string]any{"a": float64(3), "b": float64(9)}, got); diff != "" {
		t.Errorf("ports after Fold (-want +got):\n%s", diff)
	}
	if lease.Fold(cur, recs) {
		t.Error("folding the same journal again changed the state")
	}
}
