package engine_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
)

// files lists what is in dir (recursively), as paths relative to it.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A first plan writes nothing (its lock is taken and released); the deploy
// prefix it chose travels in the saved plan to the apply, which records it
// and names the new objects with it.
func TestFirstPlanWritesNoState(t *testing.T) {
	w := newWorld(t)
	random := func(o *engine.Options) { o.DeployPrefix = "" }
	p := mustPlan(t, w.engine(random), parse(t, stack))
	if got := files(t, w.stateDir); len(got) != 0 {
		t.Fatalf("plan wrote %v", got)
	}
	if p.StateExists || p.Lineage != "" || len(p.Prefix) != 8 {
		t.Fatalf("plan against no state: stateExists %v, lineage %q, prefix %q", p.StateExists, p.Lineage, p.Prefix)
	}
	// Another plan in between chooses its own prefix and writes nothing either.
	if p2 := mustPlan(t, w.engine(random), parse(t, stack)); p2.Prefix == p.Prefix {
		t.Fatalf("two first plans chose the same random prefix %q", p.Prefix)
	}
	saved := roundTrip(t, p)
	res, err := w.engine(random).Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true}, saved)
	if err != nil || res.Err() != nil {
		t.Fatalf("apply of the first plan: %v / %v", err, res.Err())
	}
	st := w.state()
	if st.Metadata.Prefix != p.Prefix {
		t.Errorf("state prefix %q, want the plan's %q", st.Metadata.Prefix, p.Prefix)
	}
	for _, o := range w.cloud() {
		if !strings.Contains(o, "/"+p.Prefix+"-") {
			t.Errorf("cloud object %s is not named with the plan's prefix %q", o, p.Prefix)
		}
	}
	if q := mustPlan(t, w.engine(random), parse(t, stack)); q.HasChanges() || q.Prefix != p.Prefix {
		t.Errorf("plan after apply: changes %v, prefix %q", actions(q), q.Prefix)
	}
}

// A plan made before any state existed is stale once a state was written.
func TestFirstPlanStaleOnceStateExists(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	first := roundTrip(t, mustPlan(t, e, parse(t, stack)))
	mustApply(t, e, parse(t, stack))
	before := w.stateBytes()
	_, err := e.Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true}, first)
	if !engine.IsStale(err) {
		t.Fatalf("apply of a first plan over an existing state: err = %v, want stale", err)
	}
	if !bytes.Equal(before, w.stateBytes()) {
		t.Error("refused plan changed the state")
	}
}

// Planning over a journal left by a crashed apply folds it in memory only:
// state and journal stay as they are until an apply.
func TestPlanLeavesStateAndJournalAlone(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	journal := filepath.Join(w.stateDir, "state.journal")
	st := w.state()
	line := `{"seq":1,"baseSerial":` + strconv.FormatInt(st.Metadata.Serial, 10) + `,"lineage":"` + st.Metadata.Lineage + `","op":"delete","name":"key"}` + "\n"
	if err := os.WriteFile(journal, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	before := w.stateBytes()
	for _, run := range []func() error{
		func() error { _, err := e.Plan(t.Context(), parse(t, stack)); return err },
		func() error { _, err := e.PlanDestroy(t.Context()); return err },
		func() error { _, err := e.ReadState(t.Context()); return err },
		func() error { _, err := e.Refresh(t.Context(), engine.RefreshOptions{}); return err },
	} {
		if err := run(); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(before, w.stateBytes()) {
		t.Error("a read-only command wrote the state")
	}
	if data, err := os.ReadFile(journal); err != nil || string(data) != line {
		t.Errorf("a read-only command changed the journal: %q, %v", data, err)
	}
	if diff := cmp.Diff([]string{"state.journal", "state.json"}, filterBackups(files(t, w.stateDir))); diff != "" {
		t.Errorf("state directory (-want +got):\n%s", diff)
	}
}

func filterBackups(fs []string) []string {
	var out []string
	for _, f := range fs {
		if !strings.HasPrefix(f, "backups") {
			out = append(out, f)
		}
	}
	return out
}

func roundTrip(t *testing.T, p *plan.Plan) *plan.Plan {
	t.Helper()
	data, err := plan.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := plan.Decode("plan.json", data)
	if err != nil {
		t.Fatal(err)
	}
	return saved
}
