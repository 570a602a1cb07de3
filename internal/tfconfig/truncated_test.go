package tfconfig_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfconfig"
)

// TestTruncatedConfigurationsAreRefusedNotCrashed: every configuration
// of the tests and the corpus, cut short at 25 places (half of them
// followed by stray syntax), is loaded and expanded without a crash, and
// what is refused is said in diagnostics, never with a Go type's name. A
// file with a syntax error is still decoded from what the parser
// recovered, so this walks partial syntax trees.
func TestTruncatedConfigurationsAreRefusedNotCrashed(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "*", "main.tf"))
	corpus, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "tfcorpus", "*", "main.tf"))
	files = append(files, corpus...)
	if len(files) < 50 {
		t.Fatalf("only %d configurations found", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		step := max(len(src)/25, 1)
		for cut := 1; cut < len(src); cut += step {
			dir := t.TempDir()
			mutated := append([]byte(nil), src[:cut]...)
			if cut%2 == 0 {
				mutated = append(mutated, "\n}\n{ = \"\n"...)
			}
			if err := os.WriteFile(filepath.Join(dir, "main.tf"), mutated, 0o644); err != nil {
				t.Fatal(err)
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s cut at byte %d: panic: %v", f, cut, r)
					}
				}()
				m, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
				if err == nil {
					_, err = tfconfig.Expand(m, tfconfig.Inputs{})
				}
				if err != nil && (strings.Contains(err.Error(), "*hcl.") || strings.Contains(err.Error(), "cty.")) {
					t.Errorf("%s cut at byte %d: a message names a Go type:\n%v", f, cut, err)
				}
			}()
		}
	}
}
