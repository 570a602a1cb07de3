package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGCSCredentialsAreTheEngines: kyku alone does not link Google's
// credentials library, so it refuses a gcs backend on a real bucket in one
// line naming it and kyku-engine (before reading any state); beside its
// kyku-engine, the same command looks for Application Default Credentials
// (here a key file that does not exist) and says so.
func TestGCSCredentialsAreTheEngines(t *testing.T) {
	p := newProject(t, simConfig+"backend: { type: gcs, bucket: kyku-test-state }\n")
	env := []string{"STORAGE_EMULATOR_HOST=", "GOOGLE_APPLICATION_CREDENTIALS=" + filepath.Join(p.dir, "no-such-key.json")}

	code, out := p.runBin(kykuIn(t, nil), env, "plan")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 1 || len(lines) != 1 ||
		!strings.Contains(out, "the gcs backend needs the Google credentials library") || !strings.Contains(out, "kyku-engine") {
		t.Errorf("kyku alone: plan with a gcs backend: exit %d, want 1 and one line naming the library and kyku-engine:\n%s", code, out)
	}

	code, out = p.runBin(kykuBin, env, "plan")
	if code != 1 || !strings.Contains(out, "no usable Google credentials") || !strings.Contains(out, "no-such-key.json") {
		t.Errorf("kyku with kyku-engine: plan with a gcs backend and a missing key file: exit %d, want 1 naming the key file:\n%s", code, out)
	}
}
