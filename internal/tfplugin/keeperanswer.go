package tfplugin

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/kyku/action/internal/state"
)

// answerFile is the engine's note of one create (state.Answer), which the
// keeper marks asked before the provider is asked and overwrites with
// the provider's answer before it hands it on: one open, and one write
// and one data sync each. A machine that crashes mid-write leaves a file
// that does not decode, and one that had not made the note's name
// durable leaves none: either keeps the create's intent refused, as
// without a keeper.
type answerFile struct {
	f       *os.File
	address string
}

// markAsked opens the note at path and marks it asked (a). The note must
// be there: the keeper creates no file the engine did not, so a call Kyku
// wrote before it died, reaching the keeper after the next apply closed
// the intent and removed the note, is refused, unasked.
func markAsked(path string, a state.Answer) (*answerFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("keep the answer for %s: its create's note is gone (the intent was closed since): not asked", a.Address)
	}
	if err != nil {
		return nil, fmt.Errorf("keep the answer for %s: %w", a.Address, err)
	}
	af := &answerFile{f: f, address: a.Address}
	if err := af.write(a, true); err != nil {
		af.close()
		return nil, err
	}
	return af, nil
}

// answer writes a, the provider's answer, over the asked mark: longer
// than it (it adds the response), so nothing is left of the mark.
func (af *answerFile) answer(a state.Answer) error { return af.write(a, false) }

func (af *answerFile) write(a state.Answer, truncate bool) error {
	data, err := state.EncodeAnswer(a)
	if err != nil {
		return err
	}
	_, err = af.f.WriteAt(data, 0)
	if err == nil && truncate {
		err = af.f.Truncate(int64(len(data)))
	}
	if err == nil {
		err = datasync(af.f)
	}
	if err != nil {
		return fmt.Errorf("keep the answer for %s: %w", af.address, err)
	}
	return nil
}

func (af *answerFile) close() { _ = af.f.Close() }
