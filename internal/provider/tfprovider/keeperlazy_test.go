package tfprovider_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// keepersRun is how many journal keepers reported to cpuFile as they
// exited (measuredKeeper): one line each.
func keepersRun(t *testing.T, cpuFile string) int {
	t.Helper()
	data, err := os.ReadFile(cpuFile)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}

// TestKeeperOnlyForKeptCreates: with a journal keeper configured, a plan
// starts none; an apply creating three objects starts one, for the
// process its first create moves to (the process that planned had none),
// and keeps each create's answer through it (the kept answers are gone
// once recorded); an apply with nothing to create starts none.
func TestKeeperOnlyForKeptCreates(t *testing.T) {
	w := newWorld(t, tfplugintest.Framework)
	cpuFile := filepath.Join(t.TempDir(), "keepers")
	w.tune = measuredKeeper(cpuFile, "")
	cfg := w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a: { type: TP_item, properties: { name: a } }
  b: { type: TP_item, properties: { name: b } }
  c: { type: TP_item, properties: { name: c } }
`)
	if p := w.plan(cfg); len(p.Changes) != 3 {
		t.Fatalf("plan: %d changes, want 3 creates", len(p.Changes))
	}
	w.close()
	if n := keepersRun(t, cpuFile); n != 0 {
		t.Errorf("a plan started %d journal keepers, want none", n)
	}

	w.apply(cfg)
	w.close()
	if n := keepersRun(t, cpuFile); n != 1 {
		t.Errorf("an apply of three creates started %d journal keepers, want 1", n)
	}
	if items, _ := filepath.Glob(filepath.Join(w.cloud, "*.json")); len(items) != 3 {
		t.Errorf("%d items in the cloud, want 3", len(items))
	}
	if ents, _ := os.ReadDir(w.answersDir()); len(ents) != 0 {
		t.Errorf("%d kept answers left after the apply, want none", len(ents))
	}

	before := keepersRun(t, cpuFile)
	w.apply(cfg)
	w.close()
	if n := keepersRun(t, cpuFile) - before; n != 0 {
		t.Errorf("an apply with nothing to create started %d journal keepers, want none", n)
	}
}
