package local

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	statemgrtest.Run(t, statemgrtest.SharedStore(
		func(t *testing.T) string { return t.TempDir() },
		func(t *testing.T, dir string) statemgr.Backend {
			return New(dir, "prod", Options{
				LockTimeout:     statemgrtest.LockTimeout,
				PollInterval:    10 * time.Millisecond,
				BackupRetention: statemgrtest.BackupRetention,
			})
		}))
}

func TestConformanceEncrypted(t *testing.T) {
	t.Parallel()
	statemgrtest.RunEncrypted(t, statemgrtest.SharedSealedStore(
		func(t *testing.T) string { return t.TempDir() },
		func(t *testing.T, dir string, c statemgr.Codec) statemgr.Backend {
			return New(dir, "prod", Options{
				LockTimeout:     statemgrtest.LockTimeout,
				PollInterval:    10 * time.Millisecond,
				BackupRetention: statemgrtest.BackupRetention,
				Codec:           c,
			})
		},
		rawFiles))
}

// rawFiles reads every file under dir but the lock, by relative path.
func rawFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == ".kyku.lock" {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
