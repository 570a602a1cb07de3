package cliproc

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestProfilesWrittenAsAsked: each variable writes its file when the
// command ends, in the format its reader takes (a CPU profile and a heap
// profile gzipped for pprof, an execution trace for go tool trace).
func TestProfilesWrittenAsAsked(t *testing.T) {
	dir := t.TempDir()
	paths := map[string]string{
		"KYKU_CPUPROFILE": filepath.Join(dir, "cpu.prof"),
		"KYKU_MEMPROFILE": filepath.Join(dir, "mem.prof"),
		"KYKU_TRACE":      filepath.Join(dir, "run.trace"),
	}
	stop := startProfiles(func(k string) string { return paths[k] })
	stop()
	for name, prefix := range map[string][]byte{
		"KYKU_CPUPROFILE": {0x1f, 0x8b}, // gzip
		"KYKU_MEMPROFILE": {0x1f, 0x8b},
		"KYKU_TRACE":      []byte("go 1."),
	} {
		b, err := os.ReadFile(paths[name])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.HasPrefix(b, prefix) {
			t.Errorf("%s wrote %q…, want a file starting %q", name, b[:min(len(b), 8)], prefix)
		}
	}

}
