package bot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/kyku/action/internal/bot/tenancy"
	"github.com/kyku/action/internal/statemgr"
)

// Namespaces were keyed by a repository's name ("<owner>/<repo>"), so a
// repository renamed lost its state and one registered again under an
// old name inherited it. They are keyed by its numeric ID now
// ("repo.<ID>"); what a repository has under its name's namespace is
// moved under its ID's once, with a log line, unless it predates the
// repository (then it is another's, and stays where it is, with a
// warning for the operator).

// adopter is a backend that can move a former location's objects into
// its own (objstore.Backend: s3, gcs, spaces).
type adopter interface {
	Adopt(ctx context.Context, from string, notBefore time.Time) (int, error)
}

// adoptions remembers the locations already moved (or found empty) by
// this process, and serializes moves: no job uses a location while its
// objects are being moved into it.
type adoptions struct {
	mu   sync.Mutex
	done map[string]bool
}

// adopt moves, once per process and location, the objects of c's legacy
// location into the backend's (an object store; an Opener moves its local
// directories itself, with Tenant.AdoptDir).
func (rt *router) adopt(ctx context.Context, t Tenant, c *tenancy.Confined, backend statemgr.Backend) error {
	a, ok := backend.(adopter)
	bc := c.Config.Backend
	if !ok || c.Legacy == "" || bc == nil {
		return nil
	}
	key := bc.Type + "\x00" + bc.Bucket + "\x00" + c.Legacy
	rt.adopted.mu.Lock()
	defer rt.adopted.mu.Unlock()
	if rt.adopted.done[key] {
		return nil
	}
	n, err := a.Adopt(ctx, c.Legacy, t.Created)
	switch {
	case errors.Is(err, statemgr.ErrPredates):
		rt.log.Warn("not moving the objects under the repository's former name: they predate it (another repository of that name left them?); move them by hand if they are its own",
			"repo", t.Repo, "id", t.ID, "bucket", bc.Bucket, "from", c.Legacy, "to", bc.Prefix, "err", err)
	case err != nil:
		return fmt.Errorf("move %s's objects from %s to its namespace %s: %w", t.Repo, c.Legacy, t.Namespace, err)
	case n > 0:
		rt.log.Info("moved the repository's objects from its name's namespace to its ID's",
			"repo", t.Repo, "id", t.ID, "bucket", bc.Bucket, "from", c.Legacy, "to", bc.Prefix, "objects", n)
	}
	if rt.adopted.done == nil {
		rt.adopted.done = map[string]bool{}
	}
	rt.adopted.done[key] = true
	return nil
}

// dirMu serializes AdoptDir: a job's Opener moves a directory before
// opening it, so no job opens one while another is moving it.
var dirMu sync.Mutex

// AdoptDir moves root/<rel under t.Legacy> to root/rel, for an Opener that
// resolves the relative paths of a confined configuration (a local
// backend's directory, the sim's dir) under root: rel is under
// t.Namespace, and whatever the repository had at the same place under
// its name's namespace becomes its own, once. Nothing is moved when there
// is nothing there, when root/rel already holds something, or when a
// file there predates the repository (t.Created: it is another's; a
// warning is logged).
func (t Tenant) AdoptDir(root, rel string) error {
	rest, ok := strings.CutPrefix(rel, t.Namespace)
	if t.Legacy == "" || t.Namespace == "" || !ok || (rest != "" && rest[0] != '/') {
		return nil
	}
	from := filepath.Join(root, filepath.FromSlash(t.Legacy+rest))
	to := filepath.Join(root, filepath.FromSlash(rel))
	dirMu.Lock()
	defer dirMu.Unlock()
	if _, err := os.Stat(from); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if entries, err := os.ReadDir(to); err == nil && len(entries) > 0 {
		return nil // already the ID's
	}
	var old string
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.ModTime().Before(t.Created) {
			old = p
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("look at %s's former directory %s: %w", t.Repo, from, err)
	}
	if old != "" {
		if t.log != nil {
			t.log.Warn("not moving the directory under the repository's former name: it predates it (another repository of that name left it?); move it by hand if it is its own",
				"repo", t.Repo, "id", t.ID, "from", from, "to", to, "file", old)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return fmt.Errorf("move %s's directory: %w", t.Repo, err)
	}
	_ = os.Remove(to) // an empty directory made before: rename needs the name free
	if err := os.Rename(from, to); err != nil {
		return fmt.Errorf("move %s's directory %s to %s: %w", t.Repo, from, to, err)
	}
	if t.log != nil {
		t.log.Info("moved the repository's directory from its name's namespace to its ID's", "repo", t.Repo, "id", t.ID, "from", from, "to", to)
	}
	return nil
}
