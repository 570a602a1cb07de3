package doctest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/kyku/action/internal/buildtest"
)

var (
	binDir    string
	buildOnce sync.Once
	buildErr  error
	buildOut  []byte
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "doctest-bin-")
	if err != nil {
		panic(err)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// kykuBinary is the CLI built from this checkout, once per test run, as it
// ships (buildtest's settings).
func kykuBinary(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	bin := filepath.Join(binDir, "kyku")
	buildOnce.Do(func() {
		// kyku-engine beside it: kyku runs every command but version and
		// help in it.
		build := buildtest.Command("-o", binDir+string(filepath.Separator), "./cmd/kyku", "./cmd/kyku-engine")
		build.Dir = root
		buildOut, buildErr = build.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("build kyku: %v\n%s", buildErr, buildOut)
	}
	return bin
}
