package tfplugin

import (
	"errors"
	"fmt"
	"github.com/kyku/action/internal/durable"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kyku/action/internal/state"
)

// answerFile is the engine's note of one create (state.Answer), which the
// keeper marks asked before the provider is asked and answers before it
// hands the provider's answer on, each durably. The asked mark is
// written over the note and synced in its file, whatever else: from then
// on the note, with its Note (the token the keeper's log names it by),
// survives a machine crash as it was synced. The answer of a note the
// answer box made (with its Note) is appended to the keeper's log, whose
// data sync is shared by every create in flight (answerLog), and is not
// written over the synced note: a note left half-rewritten by a crash
// before its pages were written back would no longer name the log's
// record of its answer. The answer of any other note is written over it
// and synced in its file. A machine that crashes mid-write leaves a file
// that does not decode, and one that had not made the note's name
// durable leaves none: either keeps the create's intent refused, as
// without a keeper.
type answerFile struct {
	f       *os.File
	path    string
	address string
	found   string     // the note's Note as opened ("": none, or unreadable)
	note    string     // the note's Note, when log is set
	log     *answerLog // nil: each write synced in the file
}

// openNote opens the note of address's create at path, locks it and
// reads its Note (found). The lock (flock, held until close) keeps the
// next apply's fold from closing the intent while the create is made;
// taken once a fold let go, it is refused unless path still names the
// file opened. The note must be there: the keeper creates no file the
// engine did not, so a call Kyku wrote before it died, reaching the
// keeper after the next apply closed the intent and removed the note, is
// refused, unasked.
func openNote(path, address string) (*answerFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("keep the answer for %s: %w", address, errNoteGone)
	}
	if err != nil {
		return nil, fmt.Errorf("keep the answer for %s: %w", address, err)
	}
	noteOpened(path)
	if err := lockNote(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("keep the answer for %s: lock its create's note: %w", address, err)
	}
	if !stillNamed(f, path) {
		_ = f.Close()
		return nil, fmt.Errorf("keep the answer for %s: %w", address, errNoteGone)
	}
	return &answerFile{f: f, path: path, address: address, found: noteOf(f, path, address)}, nil
}

// errNoteGone refuses a create whose note is no longer at its path: the
// next apply's fold closed its intent and removed it.
var errNoteGone = errors.New("its create's note is gone (the intent was closed since): not asked")

// noteOpened is called with a note's path once it is opened, before it
// is locked (tests remove it there, as a fold would).
var noteOpened = func(string) {}

// stillNamed reports whether path names f's file.
func stillNamed(f *os.File, path string) bool {
	at, err := os.Stat(path)
	if err != nil {
		return false
	}
	fi, err := f.Stat()
	return err == nil && os.SameFile(at, fi)
}

// errOtherNote refuses a keeper's call whose Note is not the one the note
// on disk names: the call of an apply that ended, reaching the keeper
// after a later apply noted the same address again.
var errOtherNote = errors.New("its create's note is another create's (the address was noted again since this call was sent, by a later apply): not asked")

// markAsked opens the note at path and marks it asked (a), when its Note
// is want (state.Answer.Note; "" for a note without one); a note of
// another Note is refused, unasked, and left as it is (errOtherNote).
func markAsked(path string, a state.Answer, want string, logs *answerLogs) (*answerFile, error) {
	af, err := openNote(path, a.Address)
	if err != nil {
		return nil, err
	}
	if af.found != want {
		af.close()
		return nil, fmt.Errorf("keep the answer for %s: %w", a.Address, errOtherNote)
	}
	if err := af.markAsked(a, logs); err != nil {
		af.close()
		return nil, err
	}
	return af, nil
}

// markAsked marks the note asked (a), durably, its answer to be kept in
// the log of its box (logs) when it has a Note.
func (af *answerFile) markAsked(a state.Answer, logs *answerLogs) error {
	if af.found != "" && logs != nil {
		// A log that cannot be made leaves each write synced in the
		// file, as for a note without a Note.
		if l, err := logs.beside(filepath.Dir(af.path)); err == nil {
			af.note, af.log = af.found, l
		}
	}
	return af.write(a, true)
}

// noteToken is the Note of the note at path of address's create, read
// as Kyku sends the call the note is for: the keeper refuses the call if
// the note it opens has another (markAsked).
func noteToken(path, address string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read the note of %s's create: %w", address, err)
	}
	defer f.Close()
	return noteOf(f, path, address), nil
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

// answer keeps a, the provider's answer: in the keeper's log when the
// note has one, else written over the asked mark (longer than it: it adds
// the response, so nothing is left of the mark) and synced.
func (af *answerFile) answer(a state.Answer) error { return af.write(a, false) }

// write keeps a: the asked mark (asked) over the note, truncated to it and
// synced in the file; an answer as answer says.
func (af *answerFile) write(a state.Answer, asked bool) error {
	a.Note = af.note
	data, err := state.EncodeAnswer(a)
	if err != nil {
		return err
	}
	if af.log != nil && !asked {
		err = af.log.commit(af.path, data)
	} else {
		_, err = af.f.WriteAt(data, 0)
		if err == nil && asked {
			err = af.f.Truncate(int64(len(data)))
		}
		if err == nil {
			err = durable.DataSync(af.f)
		}
	}
	if err != nil {
		return fmt.Errorf("keep the answer for %s: %w", af.address, err)
	}
	return nil
}

func (af *answerFile) close() { _ = af.f.Close() }
