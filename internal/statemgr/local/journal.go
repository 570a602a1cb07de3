package local

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"sync"

	"github.com/kyku/action/internal/durable"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

// Append writes e as one JSON line at the end of the journal and fsyncs it:
// O(size of the entry), durable when it returns. Concurrent appends are
// group-committed: whoever finds no flush running writes every pending line
// in one write and one fsync, and wakes the others. A torn last line left by
// a crash is repaired when the journal is first opened (kept when it is a
// whole entry, cut otherwise).
func (b *Backend) Append(ctx context.Context, e state.Entry) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("append journal: %w", err)
	}
	buf := lineBufs.Get().(*[]byte)
	defer func() {
		if cap(*buf) <= maxPooledLine {
			lineBufs.Put(buf)
		}
	}()
	line, err := state.AppendEntry((*buf)[:0], e)
	*buf = line[:0] // grown, if it had to: the next Append starts there
	if err == nil {
		line, err = statemgr.Seal(ctx, b.opts.Codec, statemgr.JournalLabel(b.env), line)
	}
	if err != nil {
		return fmt.Errorf("append journal: encode entry %d: %w", e.Seq, err)
	}
	line = append(line, '\n')
	done := make(chan error, 1)
	b.pendMu.Lock()
	b.pending = append(b.pending, pendingLine{line: line, done: done})
	if b.flushing {
		b.pendMu.Unlock()
		return <-done
	}
	b.flushing = true
	for len(b.pending) > 0 {
		batch := b.pending
		b.pending = nil
		b.pendMu.Unlock() // appends arriving now queue for the next batch
		b.journalMu.Lock()
		err := b.writeBatch(batch)
		b.journalMu.Unlock()
		for _, p := range batch {
			p.done <- err
		}
		b.pendMu.Lock()
	}
	b.flushing = false
	b.pendMu.Unlock()
	return <-done
}

// lineBufs holds the buffers Append encodes entries into: an entry's line
// is dead once its commit returned (Append waits for it), so the buffer
// serves the next one; writeBatch keeps its own buffer the same way.
// In an apply of 5,000 changes on the sim the journal allocated 9.5 MB
// without them and 0.5 MB with them (a sixth of the whole apply's).
var lineBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// Buffers that grew past these are left to the garbage collector rather
// than kept: one huge entry must not pin its memory for the process's life.
const (
	maxPooledLine  = 64 << 10
	maxPooledBatch = 1 << 20
)

// JournalSyncs reports how many times the journal was fsynced so far: with
// group commit, fewer than the appends.
func (b *Backend) JournalSyncs() int {
	b.journalMu.Lock()
	defer b.journalMu.Unlock()
	return b.syncs
}

// pendingLine is a journal line waiting for the next group commit.
type pendingLine struct {
	line []byte
	done chan error
}

// writeBatch appends lines with one write and one fsync. journalMu is held.
func (b *Backend) writeBatch(batch []pendingLine) error {
	if b.journal == nil {
		if err := b.openJournal(); err != nil {
			return err
		}
	}
	buf := b.batchBuf[:0]
	for _, p := range batch {
		buf = append(buf, p.line...)
	}
	if cap(buf) <= maxPooledBatch {
		b.batchBuf = buf
	}
	if _, err := b.journal.Write(buf); err != nil {
		b.closeJournal()
		return fmt.Errorf("append journal %s: %w", b.journalPath(), err)
	}
	if err := b.journal.Sync(); err != nil {
		b.closeJournal()
		return fmt.Errorf("append journal %s: sync: %w", b.journalPath(), err)
	}
	b.syncs++
	return nil
}

// openJournal opens (creating) the journal for appending, repairing a torn
// tail. journalMu is held.
func (b *Backend) openJournal() error {
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return fmt.Errorf("append journal: create directory: %w", err)
	}
	if err := b.keepIgnored(); err != nil {
		return fmt.Errorf("append journal: %w", err)
	}
	f, err := os.OpenFile(b.journalPath(), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("append journal: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("append journal: %w", err)
	}
	if st.Size() == 0 {
		// Make the new file's name durable too.
		if err := durable.SyncDir(b.dir); err != nil {
			f.Close()
			return err
		}
	} else if err := repairTail(f, st.Size()); err != nil {
		f.Close()
		return fmt.Errorf("append journal %s: %w", b.journalPath(), err)
	}
	b.journal = f
	return nil
}

// closeJournal drops the open journal handle. journalMu is held.
func (b *Backend) closeJournal() {
	if b.journal != nil {
		b.journal.Close()
		b.journal = nil
	}
}

// repairTail makes a journal of the given size end with a newline: a last
// line without one is a write torn by a crash. If it still decodes as a
// whole entry it is terminated; otherwise it is cut off.
func repairTail(f *os.File, size int64) error {
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, size-1); err != nil {
		return fmt.Errorf("read tail: %w", err)
	}
	if last[0] == '\n' {
		return nil
	}
	// Find the start of the torn line, reading backwards in chunks.
	const chunk = 4096
	start := int64(0)
	buf := make([]byte, chunk)
	for end := size; end > 0; {
		off := max(end-chunk, 0)
		n, err := f.ReadAt(buf[:end-off], off)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read tail: %w", err)
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			start = off + int64(i) + 1
			break
		}
		end = off
	}
	torn := make([]byte, size-start)
	if _, err := f.ReadAt(torn, start); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read tail: %w", err)
	}
	var e state.Entry
	if json.Unmarshal(torn, &e) == nil {
		_, err := f.Write([]byte{'\n'})
		return err
	}
	if err := f.Truncate(start); err != nil {
		return fmt.Errorf("cut torn line: %w", err)
	}
	return nil
}

// Entries returns the journal's entries in Seq order (none when there is no
// journal). A last line without its newline (a write torn by a crash) is
// kept when it decodes and ignored otherwise; a bad line before the end is
// an error wrapping state.ErrCorrupt.
func (b *Backend) Entries(ctx context.Context) ([]state.Entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	b.journalMu.Lock()
	data, err := os.ReadFile(b.journalPath())
	b.journalMu.Unlock()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	return b.parseJournal(ctx, data)
}

func (b *Backend) parseJournal(ctx context.Context, data []byte) ([]state.Entry, error) {
	name := b.journalPath()
	var out []state.Entry
	for lineNo := 1; len(data) > 0; lineNo++ {
		line, rest, complete := bytes.Cut(data, []byte{'\n'})
		data = rest
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e state.Entry
		plain, err := statemgr.Open(ctx, b.opts.Codec, statemgr.JournalLabel(b.env), line)
		if err != nil {
			if !complete {
				break // torn by a crash: the append never returned
			}
			return nil, fmt.Errorf("read journal %s line %d: %w", name, lineNo, err)
		}
		if err := json.Unmarshal(plain, &e); err != nil {
			if !complete {
				break // torn by a crash: the append never returned
			}
			return nil, fmt.Errorf("read journal %s line %d: %w: %v", name, lineNo, state.ErrCorrupt, err)
		}
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out, nil
}

// ClearJournal removes the journal (after it was folded into the state).
func (b *Backend) ClearJournal(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("clear journal: %w", err)
	}
	b.journalMu.Lock()
	defer b.journalMu.Unlock()
	b.closeJournal()
	if err := os.Remove(b.journalPath()); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("clear journal: %w", err)
	}
	return durable.SyncDir(b.dir)
}
