package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// index is one type's name index: the append-only file <Type>/.index of
// "cloudName id" lines (the latest line for a name wins), mirrored in
// memory and caught up incrementally, so no call re-reads it whole. A line
// whose object file is missing means the name is free: the object was
// deleted, or a crash struck between the line and the object.
//
// Its flock serializes every change to objects of the type across
// processes; mu serializes this process's goroutines, which share the
// descriptor (flock belongs to the open file, not the goroutine). The
// kernel drops a flock when its process dies, so a crash never leaves the
// index locked.
type index struct {
	mu   sync.Mutex
	path string
	f    *os.File
	dev  uint64
	ino  uint64
	off  int64  // bytes of the file parsed so far
	tail []byte // a line still being written
	buf  []byte
	ids  map[string]string
}

func (s *store) indexOf(typ string) *index {
	if v, ok := s.index.Load(typ); ok {
		return v.(*index)
	}
	v, _ := s.index.LoadOrStore(typ, &index{path: s.indexPath(typ)})
	return v.(*index)
}

// same reports whether the path still names the open file (a user may
// have deleted the directory to reset the cloud), and then its size.
func (x *index) same() (bool, int64) {
	var st unix.Stat_t
	if x.f != nil && unix.Stat(x.path, &st) == nil && st.Dev == x.dev && st.Ino == x.ino {
		return true, st.Size
	}
	return false, 0
}

// open opens the file unless the open one is still current; with create
// false a missing file is fs.ErrNotExist. Called with mu held.
func (x *index) open(s *store, typ string, create bool) error {
	if same, _ := x.same(); same {
		return nil
	}
	if x.f != nil {
		x.f.Close()
		x.f = nil
	}
	var f *os.File
	var err error
	if create {
		err = s.retryMissingDir(typ, func() (err error) {
			f, err = os.OpenFile(x.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
			return err
		})
	} else {
		f, err = os.OpenFile(x.path, os.O_RDWR|os.O_APPEND, 0)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !create {
			return err
		}
		return fmt.Errorf("sim: open name index: %w", err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return fmt.Errorf("sim: stat name index %s: %w", x.path, err)
	}
	x.f, x.dev, x.ino = f, st.Dev, st.Ino
	x.off, x.tail, x.ids = 0, nil, map[string]string{}
	return nil
}

// catchUp parses what other processes appended since the last call.
func (x *index) catchUp() error {
	if x.buf == nil {
		x.buf = make([]byte, 16<<10)
	}
	for {
		n, err := x.f.ReadAt(x.buf, x.off)
		if n > 0 {
			x.off += int64(n)
			x.parse(x.buf[:n])
		}
		if err == io.EOF || n == 0 {
			return nil
		}
		if err != nil {
			return fmt.Errorf("sim: read name index %s: %w", x.path, err)
		}
	}
}

func (x *index) parse(b []byte) {
	if len(x.tail) > 0 {
		b = append(x.tail, b...)
		x.tail = nil
	}
	for {
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			if len(b) > 0 {
				x.tail = append([]byte(nil), b...)
			}
			return
		}
		line := b[:nl]
		b = b[nl+1:]
		if sp := bytes.LastIndexByte(line, ' '); sp > 0 {
			if id := string(line[sp+1:]); validID(id) {
				x.ids[string(line[:sp])] = id
			}
		}
	}
}

// lock takes the index's locks and catches up; unlock releases them.
func (x *index) lock(s *store, typ string) error {
	x.mu.Lock()
	for {
		if x.f == nil {
			if err := x.open(s, typ, true); err != nil {
				x.mu.Unlock()
				return err
			}
		}
		if err := flock(x.f, unix.LOCK_EX); err != nil {
			x.mu.Unlock()
			return fmt.Errorf("sim: lock name index %s: %w", x.path, err)
		}
		if same, size := x.same(); same { // still the file at the path, now that we hold it
			if size == x.off {
				return nil // nothing appended since: caught up
			}
			break
		}
		// Replaced (the cloud was reset): reopen and lock the new one.
		flock(x.f, unix.LOCK_UN)
		x.f.Close()
		x.f = nil
	}
	if err := x.catchUp(); err != nil {
		x.unlock()
		return err
	}
	return nil
}

func (x *index) unlock() {
	flock(x.f, unix.LOCK_UN)
	x.mu.Unlock()
}

// set records that cloudName is id. Called locked, so caught up: a tail
// without newline is not a line being written but debris, which the new
// line must not extend.
func (x *index) set(cloudName, id string) error {
	line := cloudName + " " + id + "\n"
	if len(x.tail) > 0 {
		line = "\n" + line
	}
	if _, err := x.f.Write([]byte(line)); err != nil {
		return fmt.Errorf("sim: write name index %s: %w", x.path, err)
	}
	// Caught up and holding the flock, the line landed at x.off: take it in
	// as catchUp would have, without reading it back.
	x.off += int64(len(line))
	x.parse([]byte(line))
	return nil
}

// lookup returns the ID last recorded for cloudName ("" when none),
// without the flock: lines are appended whole.
func (x *index) lookup(s *store, typ, cloudName string) (string, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.open(s, typ, false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		return "", err
	}
	if err := x.catchUp(); err != nil {
		return "", err
	}
	return x.ids[cloudName], nil
}
