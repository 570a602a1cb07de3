package sim

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

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
//	<Dir>/<Type>/.index             "cloudName id" lines, the latest line per name wins;
//	                                also the flock under which objects of Type change
//	<Dir>/<Type>/.tmp-*             a write interrupted by a crash (ignored)
type store struct {
	dir     string
	idMu    sync.Mutex // one allocation at a time in this process; flock covers the others
	counter *os.File   // <Dir>/.next-id, open while the store lives
	// counterDev and counterIno identify the open counter file, to notice
	// when the path names another (the cloud was reset).
	counterDev, counterIno uint64
	nextID, endID          int64    // IDs reserved from the counter, not handed out yet
	ready                  sync.Map // type → true once its directory exists
	index                  sync.Map // type → *index
}

func (s *store) objectPath(typ, id string) string {
	return filepath.Join(s.dir, typ, id+".json")
}

func (s *store) indexPath(typ string) string {
	return filepath.Join(s.dir, typ, ".index")
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

// checkCloudName refuses names that cannot be a line of the index.
func checkCloudName(name string) error {
	switch {
	case name == "":
		return errors.New("empty cloud name")
	case len(name) > 255:
		return fmt.Errorf("cloud name %q is longer than 255 bytes", name)
	case strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return fmt.Errorf("cloud name %q holds a space or a control character", name)
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
	if err := os.MkdirAll(filepath.Join(s.dir, typ), 0o755); err != nil {
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
	buf := readBufs.Get().(*[]byte)
	defer readBufs.Put(buf)
	b, err := readSmall(path, buf)
	if err != nil {
		return nil, err
	}
	rec, err := decodeRecord(b) // copies what it keeps out of b
	if err != nil {
		return nil, fmt.Errorf("sim: corrupt object file %s: %w", path, err)
	}
	if rec.ID != id || rec.Type != typ {
		return nil, fmt.Errorf("sim: corrupt object file %s: it holds %s %q; the path says %s %q", path, rec.Type, rec.ID, typ, id)
	}
	if rec.Properties == nil {
		rec.Properties = map[string]any{}
	}
	return rec, nil
}

// readBufs holds buffers for reading and writing object files, which
// are small: a file's bytes are dead once read or written.
var readBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// putBuf hands buf back, unless an unusually large object grew it.
func putBuf(buf *[]byte) {
	if cap(*buf) <= 64<<10 {
		readBufs.Put(buf)
	}
}

// readSmall reads the file at path into *buf (grown as needed), usually
// with three system calls (open, read, close): os.ReadFile adds a stat, a second read
// and the poller's bookkeeping, a fair share of a plan's CPU over
// thousands of objects. A missing file is an error wrapping
// fs.ErrNotExist.
func readSmall(path string, buf *[]byte) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	b := (*buf)[:0]
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := unix.Read(fd, b[len(b):cap(b)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		short := n < cap(b)-len(b)
		b = b[:len(b)+n]
		if n == 0 || short {
			// A regular file's read comes back short only at its end
			// (object files are replaced whole, never written in place),
			// which saves the read that would return 0.
			*buf = b
			return b, nil
		}
	}
}

// exists reports whether the object file is there.
func (s *store) exists(typ, id string) bool {
	_, err := os.Stat(s.objectPath(typ, id))
	return err == nil
}

// write replaces the object file atomically (temp file + rename). No
// fsync: a simulator; kill -9 keeps the page cache.
func (s *store) write(rec *record) error {
	buf := readBufs.Get().(*[]byte)
	defer putBuf(buf)
	b, err := appendRecord((*buf)[:0], rec)
	*buf = b[:0]
	if err != nil {
		return err
	}
	path := s.objectPath(rec.Type, rec.ID)
	return s.retryMissingDir(rec.Type, func() error { return replaceFile(path, b) })
}

// writeNew writes the file of a new object atomically, failing with an
// error wrapping fs.ErrExist when the file exists: an unnamed file linked
// into place (O_TMPFILE), which on ext4 costs a fraction of a rename's CPU,
// or a named temp file linked, where O_TMPFILE is unsupported.
func (s *store) writeNew(rec *record) error {
	buf := readBufs.Get().(*[]byte)
	defer putBuf(buf)
	b, err := appendRecord((*buf)[:0], rec)
	*buf = b[:0]
	if err != nil {
		return err
	}
	path := s.objectPath(rec.Type, rec.ID)
	return s.retryMissingDir(rec.Type, func() error {
		err := linkNew(path, b)
		if errors.Is(err, errNoTmpfile) {
			return linkFile(path, b)
		}
		return err
	})
}

var errNoTmpfile = errors.New("O_TMPFILE unsupported")

func linkNew(path string, b []byte) error {
	fd, err := unix.Open(filepath.Dir(path), unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
	if err != nil {
		if err == unix.ENOENT {
			return err // the directory is gone: retryMissingDir recreates it
		}
		return errNoTmpfile
	}
	defer unix.Close(fd)
	for rest := b; len(rest) > 0; {
		n, err := unix.Write(fd, rest)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("sim: write %s: %w", path, err)
		}
		rest = rest[n:]
	}
	err = linkFD(fd, path)
	if err == unix.EEXIST {
		return fmt.Errorf("sim: write %s: %w", path, fs.ErrExist)
	}
	if err != nil {
		return errNoTmpfile // e.g. no /proc; the fallback reports real errors
	}
	return nil
}

// emptyPathLink is whether linkat(fd, "", AT_EMPTY_PATH) works here: it
// needs CAP_DAC_READ_SEARCH (root in a container has it). Where it does, it
// links the unnamed file without a lookup through /proc/self/fd per object
// (on tmpfs, linkat was a quarter of a create's CPU, much of it that
// lookup).
var emptyPathLink atomic.Int32 // 0 not known yet, 1 works, -1 refused

// linkFD links the open unnamed file fd at path.
func linkFD(fd int, path string) error {
	if emptyPathLink.Load() >= 0 {
		err := unix.Linkat(fd, "", unix.AT_FDCWD, path, unix.AT_EMPTY_PATH)
		switch err {
		case unix.EPERM, unix.ENOENT, unix.EINVAL: // refused: no capability (ENOENT), or no AT_EMPTY_PATH
			if _, statErr := os.Lstat(filepath.Dir(path)); statErr != nil {
				return err // the directory is gone: not a refusal
			}
			emptyPathLink.Store(-1)
		default:
			emptyPathLink.Store(1)
			return err
		}
	}
	return unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
}

// linkFile is linkNew without O_TMPFILE: a named temp file, linked.
func linkFile(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("sim: write %s: %w", path, err)
	}
	return nil
}

func replaceFile(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
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
}

// idBlock is how many IDs one process takes from the counter at a time:
// one locked read and write of the counter per block, not per object. IDs
// left unused when the process ends are skipped, as a cloud skips them.
const idBlock = 64

// allocID hands out the next ID, unique across every process sharing the
// directory: each process reserves blocks of IDs from a counter file under
// flock. Callers still create object files exclusively, so a counter reset
// by hand costs retries, not collisions.
func (s *store) allocID(avoid string) (string, error) {
	s.idMu.Lock()
	defer s.idMu.Unlock()
	path := filepath.Join(s.dir, ".next-id")
	for {
		if s.nextID == s.endID {
			// Whether the counter is still the file at its path is asked
			// once per block, not per ID: after a reset by hand the rest
			// of a block may be handed out, which exclusive creates make
			// a retry at worst, never a collision.
			if err := s.openCounter(path); err != nil {
				return "", err
			}
			if err := s.reserveIDs(path); err != nil {
				return "", err
			}
		}
		id := strconv.FormatInt(s.nextID, 10)
		s.nextID++
		if id != avoid { // never equal to the Kyku name
			return id, nil
		}
	}
}

// reserveIDs takes the next idBlock IDs from the counter file into
// [s.nextID, s.endID). Called with idMu held.
func (s *store) reserveIDs(path string) error {
	f := s.counter
	if err := flock(f, unix.LOCK_EX); err != nil {
		return fmt.Errorf("sim: lock ID counter %s: %w", path, err)
	}
	defer flock(f, unix.LOCK_UN)
	var buf [32]byte
	n, _ := unix.Pread(int(f.Fd()), buf[:], 0) // one call: os.File.ReadAt reads again to see the end
	n = max(n, 0)
	last := int64(firstID - 1)
	if text := strings.TrimSpace(string(buf[:n])); text != "" {
		var err error
		last, err = strconv.ParseInt(text, 10, 64)
		if err != nil {
			return fmt.Errorf("sim: corrupt ID counter %s: %q is not a number", path, text)
		}
	}
	end := last + idBlock
	// IDs only grow, so the new text is never shorter than the old.
	if _, err := f.WriteAt([]byte(strconv.FormatInt(end, 10)+"\n"), 0); err != nil {
		return fmt.Errorf("sim: write ID counter %s: %w", path, err)
	}
	s.nextID, s.endID = last+1, end+1
	return nil
}

// openCounter keeps the counter file open, reopening it when the path
// names another file (the directory was deleted to reset the cloud).
// Called with idMu held.
func (s *store) openCounter(path string) error {
	if s.counter != nil {
		var st unix.Stat_t
		if unix.Stat(path, &st) == nil && st.Dev == s.counterDev && st.Ino == s.counterIno {
			return nil
		}
		s.counter.Close()
		s.counter = nil
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(s.dir, 0o755); err == nil {
			f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		}
	}
	if err != nil {
		return fmt.Errorf("sim: open ID counter: %w", err)
	}
	var held unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &held); err != nil {
		f.Close()
		return fmt.Errorf("sim: stat ID counter: %w", err)
	}
	s.counter, s.counterDev, s.counterIno = f, held.Dev, held.Ino
	return nil
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

func (s *store) close() error {
	var errs []error
	s.idMu.Lock()
	if s.counter != nil {
		errs = append(errs, s.counter.Close())
		s.counter = nil
	}
	s.idMu.Unlock()
	s.index.Range(func(_, v any) bool {
		x := v.(*index)
		x.mu.Lock()
		if x.f != nil {
			errs = append(errs, x.f.Close())
			x.f = nil
		}
		x.mu.Unlock()
		return true
	})
	return errors.Join(errs...)
}
