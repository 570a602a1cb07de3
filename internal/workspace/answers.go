package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/local"
)

// A journal keeper keeps the answer of each create it makes for Kyku in
// the state's answer box (engine/answers.go). A state on this machine has
// its box beside it (its backend's); a remote one's (s3, gcs, http,
// Kyku's own remote backends) is a directory of Settings.AnswerDir named
// by a hash of the state's identity: its backend and where it is, and the
// workspace. An apply on another machine cannot see it: there an
// interrupted create stays refused, as without a keeper.

// answerBox is the box of b's answers on this machine, for a backend that
// keeps none beside its state; nil when b keeps its own, or when s has no
// AnswerDir.
func answerBox(b statemgr.Backend, s Settings) statemgr.AnswerBox {
	if k, ok := b.(statemgr.AnswerKeeper); ok && k.AnswerBox() != nil {
		return nil
	}
	if s.AnswerDir == "" {
		return nil
	}
	where := b.Describe()
	if id, ok := b.(statemgr.Identified); ok {
		where = id.Identity()
	}
	return local.AnswerDir(filepath.Join(s.AnswerDir, stateKey(where, s.Env)))
}

// stateKey names a state's directory of answers: a hash of where it is
// (its backend's identity or description: type and address, bucket and
// key) and the workspace, so two states never share one, and the name says nothing of
// the state.
func stateKey(where, env string) string {
	h := sha256.Sum256([]byte(where + "\x00" + env))
	return hex.EncodeToString(h[:16])
}
