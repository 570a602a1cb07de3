package tfplugin

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kyku/action/internal/state"
)

// answerFile is the engine's note of one create (state.Answer), which the
// keeper marks asked before the provider is asked and overwrites with
// the provider's answer before it hands it on. Each write is durable
// before the keeper goes on: a note the answer box made (with its Note)
// has its writes appended to the keeper's log as well, and that log's
// data sync, shared by every create in flight (answerLog), is what makes
// them durable; any other has each write synced in the file. A machine
// that crashes mid-write leaves a file that does not decode, and one
// that had not made the note's name durable leaves none: either keeps
// the create's intent refused, as without a keeper.
type answerFile struct {
	f       *os.File
	path    string
	address string
	note    string     // the note's Note, when log is set
	log     *answerLog // nil: each write synced in the file
}

// markAsked opens the note at path and marks it asked (a). The note must
// be there: the keeper creates no file the engine did not, so a call Kyku
// wrote before it died, reaching the keeper after the next apply closed
// the intent and removed the note, is refused, unasked.
func markAsked(path string, a state.Answer, logs *answerLogs) (*answerFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("keep the answer for %s: its create's note is gone (the intent was closed since): not asked", a.Address)
	}
	if err != nil {
		return nil, fmt.Errorf("keep the answer for %s: %w", a.Address, err)
	}
	af := &answerFile{f: f, path: path, address: a.Address}
	if note := noteOf(f, path, a.Address); note != "" && logs != nil {
		// A log that cannot be made leaves each write synced in the
		// file, as for a note without a Note.
		if l, err := logs.beside(filepath.Dir(path)); err == nil {
			af.note, af.log = note, l
		}
	}
	if err := af.write(a, true); err != nil {
		af.close()
		return nil, err
	}
	return af, nil
}

// noteOf is the Note of the note of address in f ("": none, or not a
// note of address the keeper can read).
func noteOf(f *os.File, path, address string) string {
	var buf [4 << 10]byte // a note is an address, a type and its Note
	k, err := f.ReadAt(buf[:], 0)
	if err != nil && err != io.EOF || k == len(buf) {
		return ""
	}
	n, err := state.DecodeAnswer(filepath.Base(path), buf[:k])
	if err != nil || n.Address != address {
		return ""
	}
	return n.Note
}

// answer writes a, the provider's answer, over the asked mark: longer
// than it (it adds the response), so nothing is left of the mark.
func (af *answerFile) answer(a state.Answer) error { return af.write(a, false) }

func (af *answerFile) write(a state.Answer, truncate bool) error {
	a.Note = af.note
	data, err := state.EncodeAnswer(a)
	if err != nil {
		return err
	}
	_, err = af.f.WriteAt(data, 0)
	if err == nil && truncate {
		err = af.f.Truncate(int64(len(data)))
	}
	if err == nil {
		if af.log != nil {
			err = af.log.commit(af.path, data)
		} else {
			err = datasync(af.f)
		}
	}
	if err != nil {
		return fmt.Errorf("keep the answer for %s: %w", af.address, err)
	}
	return nil
}

func (af *answerFile) close() { _ = af.f.Close() }
