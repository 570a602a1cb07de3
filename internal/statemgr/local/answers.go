package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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

// AnswerDir is a directory of kept answers on this machine: the answer
// box (statemgr.AnswerBox) of one state.
type AnswerDir string

var _ statemgr.AnswerBox = AnswerDir("")

func (b *Backend) answersDir() string { return filepath.Join(b.dir, b.stem()+".answers") }

// AnswerPath is where the answer to the create of address is kept.
func (d AnswerDir) AnswerPath(address string) string {
	return filepath.Join(string(d), state.AnswerName(address))
}

// Note writes a at its path: a temporary file renamed into place, not
// synced (a machine that crashes may lose it, or leave it empty: either
// leaves the intent it notes refused, as it was without).
func (d AnswerDir) Note(ctx context.Context, a state.Answer) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("note the create of %s: %w", a.Address, err)
	}
	data, err := state.EncodeAnswer(a)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(string(d), 0o700); err != nil {
		return fmt.Errorf("note the create of %s: %w", a.Address, err)
	}
	tmp, err := os.CreateTemp(string(d), ".note-*")
	if err != nil {
		return fmt.Errorf("note the create of %s: %w", a.Address, err)
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), d.AnswerPath(a.Address))
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("note the create of %s: %w", a.Address, err)
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
	return out, nil
}

// RemoveAnswer removes the answer name (gone already: nothing to do).
func (d AnswerDir) RemoveAnswer(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("remove kept answer: %w", err)
	}
	if name != filepath.Base(name) || strings.HasPrefix(name, ".") {
		return fmt.Errorf("remove kept answer: %q is not an answer's name", name)
	}
	if err := os.Remove(filepath.Join(string(d), name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove kept answer: %w", err)
	}
	return nil
}

// ClearNotes removes the temporary files of notes a killed apply left.
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
	return nil
}

// AnswerBox is the directory beside the state: it is on this machine.
func (b *Backend) AnswerBox() statemgr.AnswerBox { return AnswerDir(b.answersDir()) }

var _ statemgr.AnswerKeeper = (*Backend)(nil)
