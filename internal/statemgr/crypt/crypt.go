package crypt

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/kyku/action/internal/statemgr"
)

var _ statemgr.Codec = (*Codec)(nil)

// ErrAuthentication is wrapped when a sealed object fails authentication:
// it was altered, or moved from another role.
var ErrAuthentication = errors.New("failed authentication")

// ErrWrongKey is wrapped when no configured key opens an envelope.
var ErrWrongKey = errors.New("no configured key opens it")

// ErrNotEncrypted is wrapped by Open for clear data when encryption is on.
var ErrNotEncrypted = errors.New("stored in clear although encryption is configured")

// Key makes and recovers data keys.
type Key interface {
	// Kind is "passphrase" or "aws-kms".
	Kind() string
	// NewDataKey returns a fresh 32-byte data key and its descriptor (what
	// an envelope stores to recover it).
	NewDataKey(ctx context.Context) (dek []byte, desc json.RawMessage, err error)
	// DataKey recovers the data key from a descriptor. It wraps ErrNotMine
	// for a descriptor of another kind or key, ErrWrongKey for one it
	// cannot open.
	DataKey(ctx context.Context, desc json.RawMessage) ([]byte, error)
	// Describe names the key for messages (never its secret).
	Describe() string
}

// ErrNotMine says a descriptor belongs to another key: try the next one.
var ErrNotMine = errors.New("descriptor of another key")

// Codec seals with its primary key and opens with the primary or a fallback.
type Codec struct {
	primary     Key
	fallbacks   []Key
	acceptClear bool

	sealMu   sync.Mutex // guards sealDEK, sealDesc: made once, on the first success
	sealDEK  []byte
	sealDesc json.RawMessage

	mu     sync.Mutex
	opened map[string][]byte // descriptor → data key
}

// New returns a Codec that seals with primary and opens with primary or
// any fallback.
func New(primary Key, fallbacks ...Key) *Codec {
	return &Codec{primary: primary, fallbacks: fallbacks, opened: map[string][]byte{}}
}

// AcceptingClear returns a Codec with the same keys that also opens clear
// (unencrypted) data: for kyku state rekey, which encrypts it.
func (c *Codec) AcceptingClear() *Codec {
	n := New(c.primary, c.fallbacks...)
	n.acceptClear = true
	return n
}

// Describe names the keys, e.g. "aws-kms alias/kyku (fallback: passphrase)".
func (c *Codec) Describe() string {
	s := c.primary.Describe()
	for _, f := range c.fallbacks {
		s += " (fallback: " + f.Describe() + ")"
	}
	return s
}

type envelope struct {
	Version int             `json:"kykuEncrypted"`
	Alg     string          `json:"alg"`
	Key     json.RawMessage `json:"key"`
	Nonce   []byte          `json:"nonce"`
	Data    []byte          `json:"data"`
}

const algorithm = "AES-256-GCM"

// Seal encrypts plaintext under the process's data key with a fresh nonce.
func (c *Codec) Seal(ctx context.Context, label string, plaintext []byte) ([]byte, error) {
	dek, desc, err := c.sealKey(ctx)
	if err != nil {
		return nil, err
	}
	aead, err := gcm(dek)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails (Go 1.24+)
	env := envelope{Version: 1, Alg: algorithm, Key: desc, Nonce: nonce,
		Data: aead.Seal(nil, nonce, plaintext, aad(label, desc))}
	out, err := json.Marshal(env)
	if err != nil {
		return nil, fmt.Errorf("encrypt: %w", err)
	}
	return out, nil
}

// sealKey returns the process's data key, making it on first use; a
// failure (KMS unreachable) is not remembered: the next Seal tries again.
func (c *Codec) sealKey(ctx context.Context) ([]byte, json.RawMessage, error) {
	c.sealMu.Lock()
	defer c.sealMu.Unlock()
	if c.sealDEK == nil {
		dek, desc, err := c.primary.NewDataKey(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("encrypt: data key from %s: %w", c.primary.Describe(), err)
		}
		c.sealDEK, c.sealDesc = dek, desc
	}
	return c.sealDEK, c.sealDesc, nil
}

// Open authenticates and decrypts data sealed under label. Clear data is an
// error wrapping ErrNotEncrypted unless the Codec accepts it.
func (c *Codec) Open(ctx context.Context, label string, data []byte) ([]byte, error) {
	if !statemgr.IsSealed(data) {
		if c.acceptClear {
			return data, nil
		}
		return nil, fmt.Errorf("%w (an attacker could have put it there): run kyku state rekey to encrypt existing state", ErrNotEncrypted)
	}
	var env envelope
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil || env.Version != 1 || env.Alg != algorithm || len(env.Key) == 0 {
		return nil, fmt.Errorf("decrypt: %w: not an envelope this kyku reads", ErrAuthentication)
	}
	dek, err := c.dataKey(ctx, env.Key)
	if err != nil {
		return nil, err
	}
	aead, err := gcm(dek)
	if err != nil {
		return nil, err
	}
	if len(env.Nonce) != aead.NonceSize() {
		return nil, fmt.Errorf("decrypt: %w: bad nonce", ErrAuthentication)
	}
	plain, err := aead.Open(nil, env.Nonce, env.Data, aad(label, env.Key))
	if err != nil {
		return nil, fmt.Errorf("decrypt: %w: the object was altered, or moved here from another place; nothing of it was used", ErrAuthentication)
	}
	return plain, nil
}

// dataKey finds the key that opens desc, primary first.
func (c *Codec) dataKey(ctx context.Context, desc json.RawMessage) ([]byte, error) {
	c.mu.Lock()
	dek, ok := c.opened[string(desc)]
	c.mu.Unlock()
	if ok {
		return dek, nil
	}
	var tried []string
	var firstErr error
	for _, k := range append([]Key{c.primary}, c.fallbacks...) {
		dek, err := k.DataKey(ctx, desc)
		if errors.Is(err, ErrNotMine) {
			tried = append(tried, k.Describe())
			continue
		}
		if err != nil {
			if errors.Is(err, ErrWrongKey) {
				tried = append(tried, k.Describe())
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			return nil, fmt.Errorf("decrypt: %w", err)
		}
		c.mu.Lock()
		c.opened[string(desc)] = dek
		c.mu.Unlock()
		return dek, nil
	}
	kind := statemgr.SealedKeyKind([]byte(`{"key":` + string(desc) + `}`))
	if firstErr != nil {
		return nil, fmt.Errorf("decrypt: %w (sealed with a %s key; tried %v): %v", ErrWrongKey, kind, tried, firstErr)
	}
	return nil, fmt.Errorf("decrypt: %w: it was sealed with a %s key and the configured keys are %v; add that key as encryption.fallback", ErrWrongKey, kind, tried)
}

// aad binds the object's role and the key descriptor to the ciphertext.
func aad(label string, desc []byte) []byte {
	return append(append([]byte("kyku/v1\x00"+label+"\x00"), desc...), 0)
}

func gcm(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("encrypt: %w", err)
	}
	return cipher.NewGCM(block)
}
