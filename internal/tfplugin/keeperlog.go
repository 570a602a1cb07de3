package tfplugin

import (
	"cmp"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/kyku/action/internal/durable"
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
	f, err := lockedLog(logDir)
	if err != nil {
		return nil, err
	}
	err = durable.SyncDir(logDir)
	if err == nil {
		err = durable.SyncDir(filepath.Dir(logDir))
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

// logMade is called with a log's path between its making and its lock
// (tests remove it there, as another apply's answer box could).
var logMade = func(string) {}

// lockedLog makes a log in logDir and locks it. The next apply's answer
// box removes a log it can lock that answers no note (state's
// ClearNotes): one made but not yet locked can be removed under the
// keeper, whose lock then holds a file with no name, so the log is made
// again until the name still leads to the file locked.
func lockedLog(logDir string) (*os.File, error) {
	for range 3 {
		f, err := os.CreateTemp(logDir, state.KeeperLogPattern)
		if err != nil {
			return nil, err
		}
		logMade(f.Name())
		if err := lockLog(f); err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
			return nil, err
		}
		held, err := f.Stat()
		if err != nil {
			_ = f.Close()
			return nil, err
		}
		if named, err := os.Stat(f.Name()); err == nil && os.SameFile(held, named) {
			return f, nil
		}
		_ = f.Close()
	}
	return nil, errors.New("make the keeper's log: removed as it was made, three times")
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

// answerLog is a keeper's log of the answers it keeps (state.Answer,
// with their note's Note), written with group commit: a record is
// written in the order of the commits, then waits for a data sync that
// started after it was written; the first commit of a round runs the
// sync, once the creates ready to commit by then have joined it. Rounds
// overlap: a commit never waits for a sync that started before its
// record was written, only for one that covers it. The log is grown in
// zeroed chunks (logChunk) that records then overwrite: a data sync of
// a write inside the file's size has no size to commit (on ext4, about a
// third less CPU than one of an append). Zeros end the records read back
// (state.AnswerRecords).
type answerLog struct {
	f *os.File

	mu    sync.Mutex
	off   int64           // where the next record goes
	size  int64           // the file's size, zeroed past off
	open  *syncRound      // the round a record written now joins (nil: none yet)
	err   error           // a write or sync failed: every later commit fails
	notes map[string]bool // the paths of the notes logged
}

// syncRound is one data sync of the log and the commits waiting for it.
type syncRound struct {
	done chan struct{}
	err  error
}

// commit appends data, the answer (encoded) of the note at path,
// and returns once it is durable.
func (l *answerLog) commit(path string, data []byte) error {
	rec := state.AppendAnswerRecord(nil, data)
	l.mu.Lock()
	if l.err == nil {
		l.err = l.grow(int64(len(rec)))
	}
	if l.err == nil {
		// Written in order, under mu: the log is always whole records
		// up to off, so a sync covers every record written before it.
		_, l.err = l.f.WriteAt(rec, l.off)
	}
	if l.err != nil {
		err := l.err
		l.mu.Unlock()
		return err
	}
	l.off += int64(len(rec))
	l.notes[path] = true
	r, run := l.open, l.open == nil
	if run {
		r = &syncRound{done: make(chan struct{})}
		l.open = r
	}
	l.mu.Unlock()
	if run {
		runtime.Gosched() // the creates ready to commit join this round
		l.mu.Lock()
		l.open = nil
		l.mu.Unlock()
		r.err = syncLog(l)
		if r.err != nil {
			l.mu.Lock()
			l.err = cmp.Or(l.err, r.err)
			l.mu.Unlock()
		}
		close(r.done)
	}
	<-r.done
	if r.err != nil {
		return r.err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	// A sync that failed since may have lost a record before this one:
	// what follows a lost record is not read back.
	return l.err
}

// syncLog makes l's records durable: one round's data sync (tests hold
// it there).
var syncLog = func(l *answerLog) error { return durable.DataSync(l.f) }

// logChunk is how much the log grows by at a time.
const logChunk = 1 << 20

// grow zeroes the log past its size when n bytes more would not fit (l.mu
// held; the next sync makes the zeros durable with the records).
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

// close closes the file (its lock goes with it); no commit runs.
func (l *answerLog) close() { _ = l.f.Close() }
