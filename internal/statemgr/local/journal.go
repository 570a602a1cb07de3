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

	"github.com/kyku/action/internal/state"
)

// Append writes e as one JSON line at the end of the journal and fsyncs it:
// O(size of the entry), durable when it returns. A torn last line left by a
// crash is repaired first (kept when it is a whole entry, cut otherwise).
func (b *Backend) Append(ctx context.Context, e state.Entry) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("append journal: %w", err)
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("append journal: encode entry %d: %w", e.Seq, err)
	}
	line = append(line, '\n')

	b.journalMu.Lock()
	defer b.journalMu.Unlock()
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return fmt.Errorf("append journal: create directory: %w", err)
	}
	f, err := os.OpenFile(b.journalPath(), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("append journal: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("append journal: %w", err)
	}
	created := st.Size() == 0
	if !created {
		if err := repairTail(f, st.Size()); err != nil {
			return fmt.Errorf("append journal %s: %w", b.journalPath(), err)
		}
	}
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("append journal %s: %w", b.journalPath(), err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("append journal %s: sync: %w", b.journalPath(), err)
	}
	if created {
		return syncDir(b.dir) // make the new file's name durable too
	}
	return nil
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
	return parseJournal(b.journalPath(), data)
}

func parseJournal(name string, data []byte) ([]state.Entry, error) {
	var out []state.Entry
	for lineNo := 1; len(data) > 0; lineNo++ {
		line, rest, complete := bytes.Cut(data, []byte{'\n'})
		data = rest
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e state.Entry
		if err := json.Unmarshal(line, &e); err != nil {
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
	if err := os.Remove(b.journalPath()); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("clear journal: %w", err)
	}
	return syncDir(b.dir)
}
