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
// process and salt). These are Kyku's own parameters, and the only ones an
// envelope may name: N a power of two from minN (the cheapest a test may
// seal with) to defaultN, r=8, p=1, a 16-byte salt and an 8-byte check.
// Anything else is refused before a key is derived, so a planted envelope
// (a forged saved plan asking for N=2^20, r=16) costs nothing to refuse,
// not seconds and gigabytes.
const (
	defaultN = 1 << 15
	minN     = 1 << 10
	scryptR  = 8
	scryptP  = 1
	saltLen  = 16
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

	kdf func(password, salt []byte, n, r, p, keyLen int) ([]byte, error) // scrypt.Key; tests count calls
}

var _ Key = (*Passphrase)(nil)

// NewPassphrase returns the key for passphrase; from names its source for
// messages (e.g. "KYKU_STATE_PASSPHRASE"). costN 0 means the default;
// tests lower it (a power of two from 2^10 to the default).
func NewPassphrase(passphrase, from string, costN int) (*Passphrase, error) {
	if len(passphrase) < 12 {
		return nil, fmt.Errorf("%s is too short (%d characters): use at least 12, better a long random one", from, len(passphrase))
	}
	if costN == 0 {
		costN = defaultN
	}
	if !ownN(costN) {
		return nil, fmt.Errorf("scrypt cost N=%d for %s: want a power of two from %d to %d", costN, from, minN, defaultN)
	}
	return &Passphrase{secret: []byte(passphrase), name: from, n: costN, derived: map[string][]byte{}, kdf: scrypt.Key}, nil
}

// ownN reports whether n is a cost Kyku seals with.
func ownN(n int) bool { return n >= minN && n <= defaultN && n&(n-1) == 0 }

// ownParams says why d's key derivation is not one Kyku uses ("" when it
// is): checked before anything is derived.
func ownParams(d passDesc) string {
	switch {
	case d.KDF != "scrypt":
		return fmt.Sprintf("key derivation %q is not scrypt", d.KDF)
	case !ownN(d.N) || d.R != scryptR || d.P != scryptP:
		return fmt.Sprintf("scrypt N=%d, r=%d, p=%d are not Kyku's (N a power of two from %d to %d, r=%d, p=%d)",
			d.N, d.R, d.P, minN, defaultN, scryptR, scryptP)
	case len(d.Salt) != saltLen || len(d.Check) != checkLen:
		return fmt.Sprintf("a %d-byte salt and %d-byte check are not Kyku's (%d and %d)", len(d.Salt), len(d.Check), saltLen, checkLen)
	}
	return ""
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
	salt := make([]byte, saltLen)
	_, _ = rand.Read(salt)
	d := passDesc{Type: "passphrase", KDF: "scrypt", N: k.n, R: scryptR, P: scryptP, Salt: salt}
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
		return nil, ErrNotMine
	}
	if why := ownParams(d); why != "" {
		return nil, fmt.Errorf("%w: refused before deriving a key: %s", ErrAuthentication, why)
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
	dek, err := k.kdf(k.secret, d.Salt, d.N, d.R, d.P, 32)
	if err != nil {
		return nil, fmt.Errorf("derive key from %s: %w", k.name, err)
	}
	k.derived[id] = dek
	return dek, nil
}

// checkLen is the length of the key check value.
const checkLen = 8

// check is a short key check value: HMAC-SHA256(key, label)[:8].
func check(dek []byte) []byte {
	m := hmac.New(sha256.New, dek)
	m.Write([]byte("kyku passphrase check"))
	return m.Sum(nil)[:checkLen]
}
