package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// record is one object file, <Dir>/<Type>/<id>.json.
type record struct {
	ID         string         `json:"id"`
	Type       string         `json:"type"`
	Name       string         `json:"name"`      // the Kyku name that created it
	CloudName  string         `json:"cloudName"` // its name in the cloud (the index key)
	Created    string         `json:"created"`   // RFC 3339, UTC
	Properties map[string]any `json:"properties"`
	Outputs    map[string]any `json:"outputs"`
}

// firstID is the first ID handed out: Hetzner-like eight-digit numbers,
// which no sensible Kyku name equals.
const firstID = 10000001

// store is the directory layout:
//
//	<Dir>/.next-id                  last ID handed out (decimal), guarded by flock
//	<Dir>/<Type>/<id>.json          one object
//	<Dir>/<Type>/.names/<cloudName> the ID of the object with that cloud name
//	<Dir>/<Type>/.tmp-*             a write interrupted by a crash (ignored)
type store struct {
	dir   string
	idMu  sync.Mutex // one allocation at a time in this process; flock covers the others
	ready sync.Map   // type → true once its directories exist
}

func (s *store) objectPath(typ, id string) string {
	return filepath.Join(s.dir, typ, id+".json")
}

func (s *store) namePath(typ, cloudName string) string {
	return filepath.Join(s.dir, typ, ".names", cloudName)
}

// validID reports whether id looks like a sim ID (so it is safe in a path).
func validID(id string) bool {
	if id == "" || len(id) > 19 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < '0' || id[i] > '9' {
			return false
		}
	}
	return true
}

// checkCloudName refuses names that cannot be an index file name.
func checkCloudName(name string) error {
	switch {
	case name == "":
		return errors.New("empty cloud name")
	case len(name) > 200:
		return fmt.Errorf("cloud name %q is longer than 200 bytes", name)
	case strings.HasPrefix(name, "."), strings.ContainsAny(name, "/\\\x00"):
		return fmt.Errorf("cloud name %q may not start with a dot or hold a slash", name)
	}
	return nil
}

// ensure creates the directories of typ (once per process, and again when
// a user deleted them under a running process).
func (s *store) ensure(typ string, force bool) error {
	if !force {
		if _, ok := s.ready.Load(typ); ok {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Join(s.dir, typ, ".names"), 0o755); err != nil {
		return fmt.Errorf("sim: create cloud directory: %w", err)
	}
	s.ready.Store(typ, true)
	return nil
}

// retryMissingDir runs op, and once more after recreating typ's
// directories if op failed because they were gone.
func (s *store) retryMissingDir(typ string, op func() error) error {
	if err := s.ensure(typ, false); err != nil {
		return err
	}
	err := op()
	if errors.Is(err, fs.ErrNotExist) {
		if err := s.ensure(typ, true); err != nil {
			return err
		}
		err = op()
	}
	return err
}

// read loads an object; a missing file is an error wrapping fs.ErrNotExist,
// a corrupt one an error naming the path.
func (s *store) read(typ, id string) (*record, error) {
	path := s.objectPath(typ, id)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rec record
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("sim: corrupt object file %s: %w", path, err)
	}
	if rec.ID != id || rec.Type != typ {
		return nil, fmt.Errorf("sim: corrupt object file %s: it holds %s %q; the path says %s %q", path, rec.Type, rec.ID, typ, id)
	}
	if rec.Properties == nil {
		rec.Properties = map[string]any{}
	}
	return &rec, nil
}

// exists reports whether the object file is there.
func (s *store) exists(typ, id string) bool {
	_, err := os.Stat(s.objectPath(typ, id))
	return err == nil
}

// write replaces the object file atomically (temp file + rename). No
// fsync: a simulator; kill -9 keeps the page cache.
func (s *store) write(rec *record) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("sim: encode %s %s: %w", rec.Type, rec.ID, err)
	}
	b = append(b, '\n')
	path := s.objectPath(rec.Type, rec.ID)
	return s.retryMissingDir(rec.Type, func() error {
		f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+rec.ID+"-*")
		if err != nil {
			return err
		}
		_, err = f.Write(b)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), path)
		}
		if err != nil {
			os.Remove(f.Name())
			return fmt.Errorf("sim: write %s: %w", path, err)
		}
		return nil
	})
}

// nameLock is an exclusive flock on a cloud name's index file. While held,
// no other goroutine or process creates, updates or deletes the object with
// that name. flock is released by the kernel when a process dies, so a
// crash never leaves a name locked.
type nameLock struct {
	f    *os.File
	path string
}

// lockName locks the index file of cloudName, creating it (empty) if needed.
func (s *store) lockName(typ, cloudName string) (*nameLock, error) {
	path := s.namePath(typ, cloudName)
	for {
		var f *os.File
		err := s.retryMissingDir(typ, func() (err error) {
			f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("sim: open name index: %w", err)
		}
		if err := flock(f, unix.LOCK_EX); err != nil {
			f.Close()
			return nil, fmt.Errorf("sim: lock name index %s: %w", path, err)
		}
		// A Delete may have unlinked the file between our open and flock:
		// then we hold a lock nobody else sees; start over.
		var held, named unix.Stat_t
		if unix.Fstat(int(f.Fd()), &held) == nil && unix.Stat(path, &named) == nil &&
			held.Ino == named.Ino && held.Dev == named.Dev {
			return &nameLock{f: f, path: path}, nil
		}
		f.Close()
	}
}

// id returns the ID recorded in the index ("" when empty or unreadable).
func (l *nameLock) id() string {
	var buf [32]byte
	n, _ := l.f.ReadAt(buf[:], 0)
	id := strings.TrimSpace(string(buf[:n]))
	if !validID(id) {
		return ""
	}
	return id
}

// set records id in the index.
func (l *nameLock) set(id string) error {
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("sim: write name index %s: %w", l.path, err)
	}
	if _, err := l.f.WriteAt([]byte(id+"\n"), 0); err != nil {
		return fmt.Errorf("sim: write name index %s: %w", l.path, err)
	}
	return nil
}

// remove deletes the index file; waiters notice and retry (see lockName).
func (l *nameLock) remove() error {
	if err := os.Remove(l.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("sim: remove name index: %w", err)
	}
	return nil
}

func (l *nameLock) unlock() { l.f.Close() } // closing the last descriptor releases the flock

// lookupName reads a name index without locking it: "" when absent.
func (s *store) lookupName(typ, cloudName string) string {
	b, err := os.ReadFile(s.namePath(typ, cloudName))
	if err != nil {
		return ""
	}
	id := strings.TrimSpace(string(b))
	if !validID(id) {
		return ""
	}
	return id
}

// allocID hands out the next ID, unique across every process sharing the
// directory: a counter file under flock. An ID whose object file exists in
// typ (the counter was deleted or edited) is skipped.
func (s *store) allocID(typ, avoid string) (string, error) {
	s.idMu.Lock()
	defer s.idMu.Unlock()
	path := filepath.Join(s.dir, ".next-id")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(s.dir, 0o755); err == nil {
			f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		}
	}
	if err != nil {
		return "", fmt.Errorf("sim: open ID counter: %w", err)
	}
	defer f.Close()
	if err := flock(f, unix.LOCK_EX); err != nil {
		return "", fmt.Errorf("sim: lock ID counter %s: %w", path, err)
	}
	var buf [32]byte
	n, _ := f.ReadAt(buf[:], 0)
	last := int64(firstID - 1)
	if text := strings.TrimSpace(string(buf[:n])); text != "" {
		last, err = strconv.ParseInt(text, 10, 64)
		if err != nil {
			return "", fmt.Errorf("sim: corrupt ID counter %s: %q is not a number", path, text)
		}
	}
	for {
		last++
		id := strconv.FormatInt(last, 10)
		if id == avoid || s.exists(typ, id) {
			continue
		}
		// IDs only grow, so the new text is never shorter than the old.
		if _, err := f.WriteAt([]byte(id+"\n"), 0); err != nil {
			return "", fmt.Errorf("sim: write ID counter %s: %w", path, err)
		}
		return id, nil
	}
}

// flock retries on EINTR.
func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			return err
		}
	}
}

func removeFile(path string) error {
	if err := os.Remove(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return fmt.Errorf("sim: remove %s: %w", path, err)
	}
	return nil
}
