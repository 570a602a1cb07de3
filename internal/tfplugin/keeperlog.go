package tfplugin

import (
	"errors"
	"os"
	"path/filepath"
	"sync"

	"github.com/kyku/action/internal/state"
)

// answerLogs are a keeper's logs (answerLog), one per answer box, made
// at the box's first note with a Note (state.Answer.Note).
type answerLogs struct {
	mu   sync.Mutex
	logs map[string]*answerLog // by the box's directory
}

// beside is the keeper's log of the answer box dir, made at the first
// call: a file of its own in state.KeeperLogs(dir) (state.AnswerRecords),
// locked while the keeper runs, its name durable before it is used.
func (ls *answerLogs) beside(dir string) (*answerLog, error) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if l := ls.logs[dir]; l != nil {
		return l, nil
	}
	logDir := state.KeeperLogs(dir)
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(logDir, state.KeeperLogPattern)
	if err != nil {
		return nil, err
	}
	err = lockLog(f)
	if err == nil {
		err = syncDir(logDir)
	}
	if err == nil {
		err = syncDir(filepath.Dir(logDir))
	}
	if err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return nil, err
	}
	l := &answerLog{f: f, notes: map[string]bool{}}
	if ls.logs == nil {
		ls.logs = map[string]*answerLog{}
	}
	ls.logs[dir] = l
	return l, nil
}

// close closes the logs; a log none of whose notes is left (the apply
// recorded what each create made, and removed its note) is removed.
func (ls *answerLogs) close() {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for dir, l := range ls.logs {
		l.close()
		if !l.needed() {
			_ = os.Remove(l.f.Name())
			_ = os.Remove(state.KeeperLogs(dir)) // only when empty
		}
	}
	ls.logs = nil
}

// syncDir makes the names in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// answerLog is a keeper's log of the answers it keeps (state.Answer,
// with their note's Note), written with group commit: a commit waits for
// one data sync of the log that covers its record, and the records of
// every create that came while the sync before it ran share the next.
// The log is grown in zeroed chunks (logChunk) that records then
// overwrite: a data sync of a write inside the file's size has no size
// to commit (on ext4, about a third less CPU than one of an append).
// Zeros end the records read back (state.AnswerRecords).
type answerLog struct {
	f       *os.File
	flushed sync.WaitGroup // the flush running, if any
	off     int64          // where the next records go (the flush's)
	size    int64          // the file's size, zeroed past off (the flush's)

	mu       sync.Mutex
	pending  []byte       // records not written yet
	waiting  []chan error // their commits
	flushing bool
	err      error           // a write or sync failed: every later commit fails
	notes    map[string]bool // the paths of the notes logged
}

// commit appends data, the answer (encoded) written to the note at path,
// and returns once it is durable.
func (l *answerLog) commit(path string, data []byte) error {
	done := make(chan error, 1)
	l.mu.Lock()
	if l.err != nil {
		l.mu.Unlock()
		return l.err
	}
	l.pending = state.AppendAnswerRecord(l.pending, data)
	l.notes[path] = true
	l.waiting = append(l.waiting, done)
	if !l.flushing {
		l.flushing = true
		l.flushed.Go(l.flush)
	}
	l.mu.Unlock()
	return <-done
}

// flush writes and syncs what is pending until nothing is.
func (l *answerLog) flush() {
	var spare []byte
	for {
		l.mu.Lock()
		if len(l.waiting) == 0 {
			l.flushing = false
			l.mu.Unlock()
			return
		}
		buf, waiting := l.pending, l.waiting
		l.pending, l.waiting = spare[:0], nil
		err := l.err
		l.mu.Unlock()
		if err == nil {
			if err = l.grow(int64(len(buf))); err == nil {
				_, err = l.f.WriteAt(buf, l.off)
			}
			if err == nil {
				l.off += int64(len(buf))
				err = datasync(l.f)
			}
			if err != nil {
				// What follows a record cut short is not read back.
				l.mu.Lock()
				l.err = err
				l.mu.Unlock()
			}
		}
		for _, done := range waiting {
			done <- err
		}
		spare = buf
	}
}

// logChunk is how much the log grows by at a time.
const logChunk = 1 << 20

// grow zeroes the log past its size when n bytes more would not fit (the
// flush's sync makes the zeros durable with the records).
func (l *answerLog) grow(n int64) error {
	if l.off+n <= l.size {
		return nil
	}
	more := max(logChunk, l.off+n-l.size)
	if _, err := l.f.WriteAt(make([]byte, more), l.size); err != nil {
		return err
	}
	l.size += more
	return nil
}

// needed reports whether a note the log holds answers of is still there.
func (l *answerLog) needed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for path := range l.notes {
		if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
			return true
		}
	}
	return false
}

// close waits for the flush, if one runs, and closes the file (its
// lock goes with it).
func (l *answerLog) close() {
	l.flushed.Wait()
	_ = l.f.Close()
}
