package tfcorpus_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfcorpus"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// planKyku is Kyku's planner for the corpus, set by kykuplan_test.go:
// it plans a run as `kyku plan --json` does.
var planKyku tfcorpus.Planner

// TestCorpusMatchesOpenTofu plans every corpus entry with Kyku and
// compares the plan with OpenTofu's recorded one (or Kyku's errors with
// OpenTofu's, for an entry OpenTofu refuses). The test providers are
// built from source here; the hashicorp providers come from the mirror
// KYKU_TFCORPUS_MIRROR names (docs/benchmarks-tools.md says how to build
// it), and without it the entries that use them are skipped. An entry
// Kyku does not match yet is in knownDifferences with every difference it
// has, exactly: any other difference fails, and so does a listed entry
// that matches.
func TestCorpusMatchesOpenTofu(t *testing.T) {
	if planKyku == nil {
		t.Fatal("no Kyku planner: planKyku is not set (kykuplan_test.go sets it)")
	}
	entries, err := tfcorpus.Load(corpusRoot)
	if err != nil {
		t.Fatal(err)
	}
	mirror := tfplugintest.Mirror(t, t.TempDir(), tfplugintest.Framework, tfplugintest.SDK)
	hashicorp := os.Getenv("KYKU_TFCORPUS_MIRROR")
	if hashicorp != "" {
		from := filepath.Join(hashicorp, "registry.opentofu.org", "hashicorp")
		if _, err := os.Stat(from); err != nil {
			t.Fatalf("KYKU_TFCORPUS_MIRROR: %v", err)
		}
		if err := os.Symlink(from, filepath.Join(mirror, "registry.opentofu.org", "hashicorp")); err != nil {
			t.Fatal(err)
		}
	}
	ran := map[string][]string{}
	for _, e := range entries {
		t.Run(e.Name, func(t *testing.T) {
			providers, err := e.Providers()
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range providers {
				if strings.HasPrefix(p, "hashicorp/") && hashicorp == "" {
					t.Skipf("needs %s: set KYKU_TFCORPUS_MIRROR to a mirror of the hashicorp providers", p)
				}
			}
			ran[e.Name] = checkKnown(t, e, mirror, planKyku)
		})
	}
	if *updateKnown {
		if err := writeKnown(ran); err != nil {
			t.Fatal(err)
		}
	}
}
