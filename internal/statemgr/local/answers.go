package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

// The answers a journal keeper kept of creates whose intents this
// backend's journal holds (state.Answer) are files of the directory
// <stem>.answers beside the journal, one per address, named by
// state.AnswerName: written by the keeper, a process of its own, read and
// removed by the next apply once folded into the state. A state kept
// elsewhere (a remote backend) has its box in a directory of this
// machine's (AnswerDir).

// A keeper makes what it writes in the box durable with a log of its own
// in the directory beside it, <box>.kept (state.KeeperLogs, state.AnswerRecords): the note's
// file is written without a sync, and the log's one data sync covers the
// answers of every create in flight. A note says, in its Note, which
// records of the logs are its own; a record of it that says the create
// went further than the file (the machine crashed before the file's
// write reached the disk) is the answer read. A log is removed once no
// keeper holds it and no note it answers is left.

// AnswerDir is a directory of kept answers on this machine: the answer
// box (statemgr.AnswerBox) of one state.
type AnswerDir string

var _ statemgr.AnswerBox = AnswerDir("")

func (b *Backend) answersDir() string { return filepath.Join(b.dir, b.stem()+".answers") }

// AnswerPath is where the answer to the create of address is kept.
func (d AnswerDir) AnswerPath(address string) string {
	return filepath.Join(string(d), state.AnswerName(address))
}

// Note writes a at its path: over a file this process reuses for notes
// (notes.go), renamed into place, not synced (a machine that crashes may
// lose it, or leave it empty or another's: each leaves the intent it
// notes refused, as it was without).
func (d AnswerDir) Note(ctx context.Context, a state.Answer) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("note the create of %s: %w", a.Address, err)
	}
	if a.Note == "" {
		a.Note = state.NewNote()
	}
	data, err := state.EncodeAnswer(a)
	if err != nil {
		return err
	}
	if err := slotsOf(string(d), true).note(d.AnswerPath(a.Address), data); err != nil {
		return fmt.Errorf("note the create of %s: %w", a.Address, err)
	}
	return nil
}

// ReleaseNotes removes the files this process reuses for notes (none is
// in flight: every create noted ended); the notes left stay.
func (d AnswerDir) ReleaseNotes(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("release the notes' files: %w", err)
	}
	if s := slotsOf(string(d), false); s != nil {
		if err := s.close(); err != nil {
			return fmt.Errorf("release the notes' files: %w", err)
		}
	}
	return nil
}

// Answers are the kept answers by name (none without the directory).
func (d AnswerDir) Answers(ctx context.Context) (map[string][]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read kept answers: %w", err)
	}
	ents, err := os.ReadDir(string(d))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read kept answers: %w", err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue // a keeper's file being written
		}
		data, err := os.ReadFile(filepath.Join(string(d), e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read kept answer: %w", err)
		}
		out[e.Name()] = data
	}
	if err := d.readLogs(func(recs []state.Answer) {
		for _, a := range recs {
			name := state.AnswerName(a.Address)
			if n, ok := d.noteIn(out, name); ok && a.Note == n.Note && a.Beyond(n) {
				out[name], _ = state.EncodeAnswer(a)
			}
		}
	}); err != nil {
		return nil, fmt.Errorf("read kept answers: %w", err)
	}
	return out, nil
}

// noteIn is the note name of notes, when it has a Note.
func (d AnswerDir) noteIn(notes map[string][]byte, name string) (state.Answer, bool) {
	data, ok := notes[name]
	if !ok {
		return state.Answer{}, false
	}
	n, err := state.DecodeAnswer(name, data)
	return n, err == nil && n.Note != ""
}

// readLogs calls f with the records of each keeper's log.
func (d AnswerDir) readLogs(f func(recs []state.Answer)) error {
	logs, err := filepath.Glob(filepath.Join(state.KeeperLogs(string(d)), state.KeeperLogPattern))
	if err != nil {
		return err
	}
	for _, path := range logs {
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since
		}
		if err != nil {
			return err
		}
		f(state.AnswerRecords(data))
	}
	return nil
}

// RemoveAnswer removes the answer name (gone already: nothing to do).
func (d AnswerDir) RemoveAnswer(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("remove kept answer: %w", err)
	}
	if name != filepath.Base(name) || strings.HasPrefix(name, ".") {
		return fmt.Errorf("remove kept answer: %q is not an answer's name", name)
	}
	path := filepath.Join(string(d), name)
	if s := slotsOf(string(d), false); s != nil && s.release(path) {
		return nil // its file serves the next note
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove kept answer: %w", err)
	}
	return nil
}

// ClearNotes removes the temporary files of notes a killed apply left,
// and the keepers' logs no keeper holds and no note left needs.
func (d AnswerDir) ClearNotes(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("clear half-written notes: %w", err)
	}
	left, err := filepath.Glob(filepath.Join(string(d), ".note-*"))
	if err != nil {
		return fmt.Errorf("clear half-written notes: %w", err)
	}
	for _, f := range left {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("clear half-written notes: %w", err)
		}
	}
	logs, err := filepath.Glob(filepath.Join(state.KeeperLogs(string(d)), state.KeeperLogPattern))
	if err != nil {
		return fmt.Errorf("clear the keepers' logs: %w", err)
	}
	for _, path := range logs {
		if err := d.removeUnneeded(path); err != nil {
			return fmt.Errorf("clear the keepers' logs: %w", err)
		}
	}
	return nil
}

// removeUnneeded removes the keeper's log at path when no keeper holds it
// (then nothing is appended to it any more) and no note left is one it
// answers.
func (d AnswerDir) removeUnneeded(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		return nil // its keeper runs
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	for _, a := range state.AnswerRecords(data) {
		data, err := os.ReadFile(d.AnswerPath(a.Address))
		if err != nil {
			continue
		}
		if n, err := state.DecodeAnswer(state.AnswerName(a.Address), data); err == nil && n.Note == a.Note {
			return nil // its note is left
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// AnswerBox is the directory beside the state: it is on this machine.
func (b *Backend) AnswerBox() statemgr.AnswerBox { return AnswerDir(b.answersDir()) }

var _ statemgr.AnswerKeeper = (*Backend)(nil)
