package settings

import (
	"errors"
	"strings"
	"testing"

	"github.com/kyku/action/internal/diag"
)

// TestConcurrentAppliesByDefault (issue 41): different pull requests'
// jobs on one project run at once unless the file says
// concurrent-applies: false; older files saying true stay valid.
func TestConcurrentAppliesByDefault(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		want       bool
	}{
		{"no file", "", true},
		{"not set", "comment: sticky\n", true},
		{"said so", "concurrent-applies: true\n", true},
		{"opted out", "concurrent-applies: false\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse(Path, []byte(tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if s.ConcurrentApplies != tc.want {
				t.Errorf("ConcurrentApplies = %v, want %v", s.ConcurrentApplies, tc.want)
			}
		})
	}
	if !Defaults().ConcurrentApplies {
		t.Error("without a settings file, jobs of different pull requests run one at a time")
	}
	_, err := Parse(Path, []byte("concurrent-applies: sometimes\n"))
	var ds diag.Diagnostics
	if !errors.As(err, &ds) || !strings.Contains(err.Error(), "config.yaml:1:21: concurrent-applies must be true or false") {
		t.Errorf("err = %v, want concurrent-applies must be true or false at line 1", err)
	}
}
