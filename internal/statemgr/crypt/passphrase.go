package crypt

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"

	"golang.org/x/crypto/scrypt"
)

// scrypt cost: N=2^15, r=8, p=1 (32 MiB, tens of milliseconds, once per
// process and salt). Envelopes asking for more than maxN are refused, so a
// planted envelope cannot make Kyku spend minutes or gigabytes.
const (
	defaultN = 1 << 15
	maxN     = 1 << 20
)

// Passphrase is a key derived from a passphrase with scrypt. Each process
// seals under a fresh random salt, stored in the envelope with a short key
// check, so a wrong passphrase is told apart from a tampered object.
type Passphrase struct {
	secret []byte
	name   string // where it came from, for messages
	n      int

	mu      sync.Mutex
	derived map[string][]byte // salt|n → key
}

var _ Key = (*Passphrase)(nil)

// NewPassphrase returns the key for passphrase; from names its source for
// messages (e.g. "KYKU_STATE_PASSPHRASE"). costN 0 means the default.
func NewPassphrase(passphrase, from string, costN int) (*Passphrase, error) {
	if len(passphrase) < 12 {
		return nil, fmt.Errorf("%s is too short (%d characters): use at least 12, better a long random one", from, len(passphrase))
	}
	if costN == 0 {
		costN = defaultN
	}
	return &Passphrase{secret: []byte(passphrase), name: from, n: costN, derived: map[string][]byte{}}, nil
}

type passDesc struct {
	Type  string `json:"type"`
	KDF   string `json:"kdf"`
	N     int    `json:"n"`
	R     int    `json:"r"`
	P     int    `json:"p"`
	Salt  []byte `json:"salt"`
	Check []byte `json:"check"`
}

func (k *Passphrase) Kind() string     { return "passphrase" }
func (k *Passphrase) Describe() string { return "passphrase from " + k.name }

func (k *Passphrase) NewDataKey(context.Context) ([]byte, json.RawMessage, error) {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	d := passDesc{Type: "passphrase", KDF: "scrypt", N: k.n, R: 8, P: 1, Salt: salt}
	dek, err := k.derive(d)
	if err != nil {
		return nil, nil, err
	}
	d.Check = check(dek)
	raw, err := json.Marshal(d)
	return dek, raw, err
}

func (k *Passphrase) DataKey(_ context.Context, raw json.RawMessage) ([]byte, error) {
	var d passDesc
	if err := json.Unmarshal(raw, &d); err != nil || d.Type != "passphrase" {
		return nil, errNotMine
	}
	if d.KDF != "scrypt" || d.N < 2 || d.N > maxN || d.R < 1 || d.R > 16 || d.P < 1 || d.P > 4 || len(d.Salt) < 8 {
		return nil, fmt.Errorf("%w: its passphrase parameters are out of bounds", ErrAuthentication)
	}
	dek, err := k.derive(d)
	if err != nil {
		return nil, err
	}
	if !hmac.Equal(check(dek), d.Check) {
		return nil, fmt.Errorf("%w: the passphrase in %s is not the one it was sealed with", ErrWrongKey, k.name)
	}
	return dek, nil
}

func (k *Passphrase) derive(d passDesc) ([]byte, error) {
	id := fmt.Sprintf("%x|%d|%d|%d", d.Salt, d.N, d.R, d.P)
	k.mu.Lock()
	defer k.mu.Unlock()
	if dek, ok := k.derived[id]; ok {
		return dek, nil
	}
	dek, err := scrypt.Key(k.secret, d.Salt, d.N, d.R, d.P, 32)
	if err != nil {
		return nil, fmt.Errorf("derive key from %s: %w", k.name, err)
	}
	k.derived[id] = dek
	return dek, nil
}

// check is a short key check value: HMAC-SHA256(key, label)[:8].
func check(dek []byte) []byte {
	m := hmac.New(sha256.New, dek)
	m.Write([]byte("kyku passphrase check"))
	return m.Sum(nil)[:8]
}
