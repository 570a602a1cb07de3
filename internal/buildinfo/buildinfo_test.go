package buildinfo_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/buildinfo"
)

// TestEngineVersion: given values win, joined as the CLI joins them; a
// test binary without VCS information still says something (the module
// version Go recorded, or "(devel)").
func TestEngineVersion(t *testing.T) {
	if got := buildinfo.EngineVersion("v1.4.0", "5f0c1d"); got != "v1.4.0 5f0c1d" {
		t.Errorf("EngineVersion(v1.4.0, 5f0c1d) = %q", got)
	}
	if got := buildinfo.EngineVersion("", "5f0c1d"); !strings.HasSuffix(got, " 5f0c1d") || strings.HasPrefix(got, " ") {
		t.Errorf("EngineVersion(\"\", 5f0c1d) = %q, want the recorded module version before the commit", got)
	}
}
