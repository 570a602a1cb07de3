package statemgr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kyku/action/internal/state"
)

// Codec seals what a backend stores and opens what it reads back: the
// state, journal entries, backups and named objects (the lock is never
// sealed: it holds no property values). Backends apply it to the bytes they
// store, so a reader without the key (an older kyku, a script) finds no
// valid state and fails closed instead of seeing an empty one.
//
// label names the object's role (StateLabel, JournalLabel, BackupLabel,
// ObjectLabel) and is bound into the seal: an object copied into another
// role fails to open. A Codec is safe for concurrent use.
type Codec interface {
	Seal(ctx context.Context, label string, plaintext []byte) ([]byte, error)
	// Open returns the plaintext of data sealed under label. It refuses
	// data that is not sealed unless the codec was built to accept it.
	Open(ctx context.Context, label string, data []byte) ([]byte, error)
}

// ErrEncrypted is wrapped by Open (with a nil Codec) for data that is
// sealed: encryption is not configured, or its key is missing.
var ErrEncrypted = errors.New("stored data is encrypted")

// sealedPrefix starts every sealed envelope (compact JSON, one line).
const sealedPrefix = `{"kykuEncrypted":`

// IsSealed reports whether data is a sealed envelope.
func IsSealed(data []byte) bool { return bytes.HasPrefix(data, []byte(sealedPrefix)) }

// SealedKeyKind returns the kind of key ("passphrase", "aws-kms") that
// sealed data, or "" when it cannot tell.
func SealedKeyKind(data []byte) string {
	var env struct {
		Key struct {
			Type string `json:"type"`
		} `json:"key"`
	}
	if json.Unmarshal(data, &env) != nil {
		return ""
	}
	return env.Key.Type
}

// Seal seals data with c; a nil c stores it in clear.
func Seal(ctx context.Context, c Codec, label string, data []byte) ([]byte, error) {
	if c == nil {
		return data, nil
	}
	return c.Seal(ctx, label, data)
}

// Open opens data with c. With a nil c, clear data is returned as is and
// sealed data is an error wrapping ErrEncrypted that says what to set.
func Open(ctx context.Context, c Codec, label string, data []byte) ([]byte, error) {
	if c != nil {
		return c.Open(ctx, label, data)
	}
	if !IsSealed(data) {
		return data, nil
	}
	switch kind := SealedKeyKind(data); kind {
	case "passphrase":
		return nil, fmt.Errorf("%w with a passphrase, and encryption is not configured: add \"encryption: { key: passphrase }\" to kyku.yaml and set KYKU_STATE_PASSPHRASE", ErrEncrypted)
	case "aws-kms":
		return nil, fmt.Errorf("%w with an AWS KMS data key, and encryption is not configured: add \"encryption: { key: aws-kms, keyId: … }\" to kyku.yaml", ErrEncrypted)
	default:
		return nil, fmt.Errorf("%w, and encryption is not configured: add \"encryption:\" to kyku.yaml", ErrEncrypted)
	}
}

// stem is "state.<env>", or "state" for the default environment.
func stem(env string) string {
	if env == "" {
		return "state"
	}
	return "state." + env
}

// StateLabel, JournalLabel, BackupLabel and ObjectLabel are the labels
// every backend seals with, so that sealed data means the same in each.
func StateLabel(env string) string   { return "state:" + stem(env) }
func JournalLabel(env string) string { return "journal:" + stem(env) }
func BackupLabel(env string) string  { return "backup:" + stem(env) }
func ObjectLabel(key string) string  { return "object:" + key }

// BackupRewriter is implemented by backends that can replace a backup's
// content in place, keeping its key (kyku state rekey).
type BackupRewriter interface {
	RewriteBackup(ctx context.Context, key string, f *state.File) error
}
