package settings

import (
	"errors"
	"strings"
	"testing"

	"github.com/kyku/action/internal/diag"
)

// TestConcurrentAppliesOptIn: different pull requests' jobs on one
// project run at once when the file says concurrent-applies: true.
func TestConcurrentAppliesOptIn(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		want       bool
	}{
		{"no file", "", false},
		{"not set", "comment: sticky\n", false},
		{"opted in", "concurrent-applies: true\n", true},
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
	if Defaults().ConcurrentApplies {
		t.Error("without a settings file, jobs of different pull requests run at once")
	}
	_, err := Parse(Path, []byte("concurrent-applies: sometimes\n"))
	var ds diag.Diagnostics
	if !errors.As(err, &ds) || !strings.Contains(err.Error(), "config.yaml:1:21: concurrent-applies must be true or false") {
		t.Errorf("err = %v, want concurrent-applies must be true or false at line 1", err)
	}
}
