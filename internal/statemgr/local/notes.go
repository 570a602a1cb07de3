package local

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// A note (AnswerDir.Note) is written to a file of the box's own, a slot
// named like a half-written note (.note-*), and renamed to its address's
// name; once the object its create made is recorded (RemoveAnswer), it is
// renamed back and serves the next note. So an apply makes about as many
// files as it has creates in flight, not one per create: on ext4 without
// a journal, each new inode's allocation skips, one by one, every inode
// of its group freed in the last seconds, and each removal discards the
// file's block at once where the file system is mounted with discard:
// 0.13–0.37 ms of CPU a create in profiles of an apply of 5,000 creates
// on such a VM, against about 0.06 ms with the slots (docs/benchmarks.md).
// ReleaseNotes removes the slots once no create is in flight; a killed
// apply's are removed by the next ClearNotes, as its half-written notes
// were.
//
// Only this process renames its slots: a note is renamed back from its
// address's name only by the process that noted it, which no other apply
// writes while the create it notes is in flight (the state's lock, or a
// lease on the address). Crash-wise a note written over a slot is what a
// new file was: not synced, renamed into place whole, so a killed process
// leaves it whole or not at all; a machine that crashes may leave its name
// on another note's content (one its address's name does not match, so
// trusted for nothing: state.DecodeAnswer) or on none, which leaves the
// intent it notes refused, as a lost new file did.

// noteSlots are this process's slots in one box directory.
type noteSlots struct {
	dir string

	mu     sync.Mutex
	made   bool                // the directory exists
	free   []*os.File          // slots holding no note, by their slot names
	held   map[string]*os.File // slots renamed to a note's path, by that path
	closed bool                // released: what comes back is closed
}

// slotPools are the slots of each box directory this process writes
// notes to (AnswerDir values naming one directory share them).
var slotPools = struct {
	sync.Mutex
	byDir map[string]*noteSlots
}{byDir: map[string]*noteSlots{}}

// slotsOf is the slots of dir, made when create is set (else nil when
// none).
func slotsOf(dir string, create bool) *noteSlots {
	dir = filepath.Clean(dir)
	slotPools.Lock()
	defer slotPools.Unlock()
	s := slotPools.byDir[dir]
	if s == nil && create {
		s = &noteSlots{dir: dir, held: map[string]*os.File{}}
		slotPools.byDir[dir] = s
	}
	return s
}

// note writes data over a slot and renames it to path.
func (s *noteSlots) note(path string, data []byte) error {
	f, err := s.take()
	if err != nil {
		return err
	}
	err = s.place(f, path, data)
	if errors.Is(err, fs.ErrNotExist) {
		// The slot was removed under this process (a ClearNotes since
		// it was last used): a new one.
		_ = f.Close()
		if f, err = s.make(); err != nil {
			return err
		}
		err = s.place(f, path, data)
	}
	if err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		_ = f.Close() // the note stays; its slot is let go
		return nil
	}
	if old := s.held[path]; old != nil {
		_ = old.Close() // renamed over: its file has no name left
	}
	s.held[path] = f
	return nil
}

// place writes data over the slot f, whole, and renames it to path.
// What the slot held is longer, mostly: the keeper's answer of the last
// note written there. Rather than cut it (a truncate costs ext4 a trip
// through its orphan list, about a fifth of a note's CPU), data is padded
// with spaces to its length, which every reader of a note takes as the
// note (JSON allows them after the value); a slot held much more (a
// large answer) is cut, so that a note stays one the keeper reads whole
// (it reads up to 4 KiB).
func (s *noteSlots) place(f *os.File, path string, data []byte) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	held := fi.Size()
	if pad := held - int64(len(data)); pad > 0 && held <= maxPaddedNote {
		for range pad {
			data = append(data, ' ')
		}
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		return err
	}
	if held > int64(len(data)) {
		if err := f.Truncate(int64(len(data))); err != nil {
			return err
		}
	}
	return rename(f.Name(), path)
}

// maxPaddedNote is the longest a note is padded to (notes.go: place).
const maxPaddedNote = 2 << 10

// rename renames a file without os.Rename's Lstat of the new name (it
// refuses a directory there; so does rename(2) for a file): a tenth of
// a note's system CPU.
func rename(from, to string) error {
	if err := unix.Rename(from, to); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

// take is a free slot, or a new one.
func (s *noteSlots) take() (*os.File, error) {
	s.mu.Lock()
	if n := len(s.free); n > 0 {
		f := s.free[n-1]
		s.free = s.free[:n-1]
		s.mu.Unlock()
		return f, nil
	}
	s.mu.Unlock()
	return s.make()
}

// make makes a slot (and the directory, the first time).
func (s *noteSlots) make() (*os.File, error) {
	s.mu.Lock()
	made := s.made
	s.mu.Unlock()
	if !made {
		if err := os.MkdirAll(s.dir, 0o700); err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.made = true
		s.mu.Unlock()
	}
	f, err := os.CreateTemp(s.dir, ".note-*")
	if errors.Is(err, fs.ErrNotExist) {
		// The directory was removed since.
		if err = os.MkdirAll(s.dir, 0o700); err == nil {
			f, err = os.CreateTemp(s.dir, ".note-*")
		}
	}
	return f, err
}

// release renames the note at path back to its slot, which then serves
// the next note; it reports whether it did (false: path is not a note
// this process holds, or the rename failed and the slot is let go).
func (s *noteSlots) release(path string) bool {
	s.mu.Lock()
	f := s.held[path]
	delete(s.held, path)
	s.mu.Unlock()
	if f == nil {
		return false
	}
	if err := rename(path, f.Name()); err != nil {
		_ = f.Close()
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return true
	}
	s.free = append(s.free, f)
	return true
}

// close lets go of the slots: the free ones are removed, the notes held
// stay (a create not recorded: the next fold reads them).
func (s *noteSlots) close() error {
	slotPools.Lock()
	if slotPools.byDir[s.dir] == s {
		delete(slotPools.byDir, s.dir)
	}
	slotPools.Unlock()
	s.mu.Lock()
	free, held := s.free, s.held
	s.free, s.held, s.closed = nil, nil, true
	s.mu.Unlock()
	var errs []error
	for _, f := range free {
		_ = f.Close()
		if err := os.Remove(f.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	for _, f := range held {
		_ = f.Close()
	}
	return errors.Join(errs...)
}
