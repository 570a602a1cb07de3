package crypt_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/crypt"
	"github.com/kyku/action/internal/statemgr/crypt/awskms"
	"github.com/kyku/action/internal/statemgr/crypt/kmstest"
)

const testN = 1 << 10 // cheap scrypt for tests; the default is 2^15

func pass(t *testing.T, p string) *crypt.Passphrase {
	t.Helper()
	k, err := crypt.NewPassphrase(p, "KYKU_STATE_PASSPHRASE", testN)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// envelope mirrors the stored form, in its field order.
type envelope struct {
	Version int             `json:"kykuEncrypted"`
	Alg     string          `json:"alg"`
	Key     json.RawMessage `json:"key"`
	Nonce   []byte          `json:"nonce"`
	Data    []byte          `json:"data"`
}

var secret = []byte(`{"resources":{"db":{"config":{"password":"hunter2-very-secret"}}}}`)

// Sealed data round-trips, holds no plaintext, and every key opens only
// what it sealed; a fallback opens what the previous key sealed.
func TestSealOpenAndFallback(t *testing.T) {
	ctx := t.Context()
	kmsSrv := kmstest.New(t)
	oldKey, newKey := pass(t, "old passphrase, long enough"), awskms.New(kmsSrv.Client(), "alias/kyku-state")
	old := crypt.New(oldKey)
	sealed, err := old.Seal(ctx, "state:state.prod", secret)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("hunter2")) || !statemgr.IsSealed(sealed) || bytes.ContainsRune(sealed, '\n') {
		t.Fatalf("sealed data is not an opaque one-line envelope: %s", sealed)
	}
	got, err := old.Open(ctx, "state:state.prod", sealed)
	if err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("Open = %q, %v", got, err)
	}
	rotated := crypt.New(newKey, oldKey)
	if got, err := rotated.Open(ctx, "state:state.prod", sealed); err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("Open with the old key as fallback = %q, %v", got, err)
	}
	resealed, err := rotated.Seal(ctx, "state:state.prod", secret)
	if err != nil {
		t.Fatal(err)
	}
	if kind := statemgr.SealedKeyKind(resealed); kind != "aws-kms" {
		t.Errorf("rotated codec seals with %q, want the primary aws-kms", kind)
	}
	if _, err := old.Open(ctx, "state:state.prod", resealed); !errors.Is(err, crypt.ErrWrongKey) {
		t.Errorf("old key opening the new key's data: %v, want ErrWrongKey", err)
	}
	if _, err := crypt.New(newKey).Open(ctx, "state:state.prod", sealed); !errors.Is(err, crypt.ErrWrongKey) || !strings.Contains(err.Error(), "fallback") {
		t.Errorf("new key alone opening the old key's data: %v, want ErrWrongKey that suggests a fallback", err)
	}
	for range 3 {
		if _, err := rotated.Seal(ctx, "object:plans/prod/pr-1.json", secret); err != nil {
			t.Fatal(err)
		}
	}
	if n := kmsSrv.Calls("GenerateDataKey"); n != 1 {
		t.Errorf("GenerateDataKey called %d times, want once per process", n)
	}
}

// A wrong passphrase is told apart from a tampered object; a tampered byte
// anywhere, or an object moved to another role, never opens.
func TestWrongKeyAndTampering(t *testing.T) {
	ctx := t.Context()
	c := crypt.New(pass(t, "the right passphrase"))
	sealed, err := c.Seal(ctx, "journal:state.prod", secret)
	if err != nil {
		t.Fatal(err)
	}
	_, err = crypt.New(pass(t, "the wrong passphrase")).Open(ctx, "journal:state.prod", sealed)
	if !errors.Is(err, crypt.ErrWrongKey) || !strings.Contains(err.Error(), "KYKU_STATE_PASSPHRASE") {
		t.Errorf("wrong passphrase: %v; want ErrWrongKey naming KYKU_STATE_PASSPHRASE", err)
	}
	if _, err := c.Open(ctx, "state:state.prod", sealed); !errors.Is(err, crypt.ErrAuthentication) {
		t.Errorf("journal entry opened as the state: %v; want ErrAuthentication", err)
	}
	var env envelope
	if err := json.Unmarshal(sealed, &env); err != nil {
		t.Fatal(err)
	}
	ct := env.Data
	for i := range ct {
		env.Data = bytes.Clone(ct)
		env.Data[i] ^= 0x01
		bad, _ := json.Marshal(env)
		got, err := c.Open(ctx, "journal:state.prod", bad)
		if !errors.Is(err, crypt.ErrAuthentication) || got != nil {
			t.Fatalf("byte %d flipped: Open = %q, %v; want nothing and ErrAuthentication", i, got, err)
		}
	}
}

// Clear data is refused once encryption is on (it could have been planted),
// except by the codec kyku state rekey uses; sealed data without a codec
// says what to configure.
func TestClearAndMissingKey(t *testing.T) {
	ctx := t.Context()
	c := crypt.New(pass(t, "a passphrase of length"))
	clear := []byte(`{"metadata":{"version":1}}`)
	if _, err := c.Open(ctx, "state:state", clear); !errors.Is(err, crypt.ErrNotEncrypted) || !strings.Contains(err.Error(), "kyku state rekey") {
		t.Errorf("clear data with encryption on: %v; want ErrNotEncrypted pointing at kyku state rekey", err)
	}
	if got, err := c.AcceptingClear().Open(ctx, "state:state", clear); err != nil || !bytes.Equal(got, clear) {
		t.Errorf("rekey codec on clear data = %q, %v", got, err)
	}
	sealed, _ := c.Seal(ctx, "state:state", secret)
	_, err := statemgr.Open(ctx, nil, "state:state", sealed)
	if !errors.Is(err, statemgr.ErrEncrypted) || !strings.Contains(err.Error(), "KYKU_STATE_PASSPHRASE") {
		t.Errorf("sealed data without a codec: %v; want ErrEncrypted naming KYKU_STATE_PASSPHRASE", err)
	}
	if _, err := crypt.NewPassphrase("short", "KYKU_STATE_PASSPHRASE", 0); err == nil {
		t.Error("a 5-character passphrase was accepted")
	}
}

// forge rewrites the key descriptor of a sealed envelope.
func forge(t *testing.T, sealed []byte, change func(desc map[string]any)) []byte {
	t.Helper()
	var env envelope
	if err := json.Unmarshal(sealed, &env); err != nil {
		t.Fatal(err)
	}
	var desc map[string]any
	if err := json.Unmarshal(env.Key, &desc); err != nil {
		t.Fatal(err)
	}
	change(desc)
	env.Key, _ = json.Marshal(desc)
	out, _ := json.Marshal(env)
	return out
}

// TestForgedScryptCostIsRefusedBeforeDeriving: a stored object (a forged
// saved plan) chooses the key derivation's cost in its envelope. Only
// Kyku's own parameters are accepted, and the check comes before any
// derivation: the key derivation function is never called for a forged
// envelope (counted, not timed), so refusing N=2^20, r=16 costs nothing.
func TestForgedScryptCostIsRefusedBeforeDeriving(t *testing.T) {
	ctx := t.Context()
	sealed, err := crypt.New(pass(t, "a passphrase of length")).Seal(ctx, "object:plans/prod/pr-1.json", secret)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(map[string]any)
		want   string
	}{
		{"N=2^20, r=16 (10 s and 2 GB per open)", func(d map[string]any) { d["n"], d["r"] = 1<<20, 16 }, "scrypt N=1048576, r=16, p=1 are not Kyku's"},
		{"N=2^30", func(d map[string]any) { d["n"] = 1 << 30 }, "N=1073741824"},
		{"N=2^16, one step above the default", func(d map[string]any) { d["n"] = 1 << 16 }, "N=65536"},
		{"N not a power of two", func(d map[string]any) { d["n"] = 3000 }, "N=3000"},
		{"p=16", func(d map[string]any) { d["p"] = 16 }, "p=16"},
		{"r=1", func(d map[string]any) { d["r"] = 1 }, "r=1"},
		{"another KDF", func(d map[string]any) { d["kdf"] = "pbkdf2" }, `key derivation "pbkdf2" is not scrypt`},
		{"a 1 MB salt", func(d map[string]any) { d["salt"] = strings.Repeat("A", 1<<20) }, "salt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := pass(t, "a passphrase of length")
			derived := crypt.CountDerivations(k)
			start := time.Now()
			_, err := crypt.New(k).Open(ctx, "object:plans/prod/pr-1.json", forge(t, sealed, tc.change))
			if !errors.Is(err, crypt.ErrAuthentication) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "refused before deriving") {
				t.Errorf("forged envelope: %v; want ErrAuthentication saying %q", err, tc.want)
			}
			if n := derived.Load(); n != 0 {
				t.Errorf("%d keys derived for a forged envelope, want none", n)
			}
			// Generous: the structural claim is the count above.
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("refusing took %s", el)
			}
		})
	}

	// The envelope as sealed opens, with one derivation.
	k := pass(t, "a passphrase of length")
	derived := crypt.CountDerivations(k)
	if got, err := crypt.New(k).Open(ctx, "object:plans/prod/pr-1.json", sealed); err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if n := derived.Load(); n != 1 {
		t.Errorf("%d keys derived opening a genuine envelope, want 1", n)
	}
	// Kyku never seals with parameters it would refuse.
	if _, err := crypt.NewPassphrase("a passphrase of length", "KYKU_STATE_PASSPHRASE", 1<<20); err == nil {
		t.Error("NewPassphrase accepted N=2^20")
	}
}

// A KMS data key is opened once per envelope key, not once per object.
func TestKMSDecryptCached(t *testing.T) {
	ctx := t.Context()
	srv := kmstest.New(t)
	sealer := crypt.New(awskms.New(srv.Client(), "key-a"))
	var objs [][]byte
	for range 5 {
		s, err := sealer.Seal(ctx, "object:runs/prod/1.json", secret)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, s)
	}
	reader := crypt.New(awskms.New(srv.Client(), "key-a"))
	for _, o := range objs {
		if got, err := reader.Open(ctx, "object:runs/prod/1.json", o); err != nil || !bytes.Equal(got, secret) {
			t.Fatalf("Open = %q, %v", got, err)
		}
	}
	if n := srv.Calls("Decrypt"); n != 1 {
		t.Errorf("Decrypt called %d times for 5 objects under one data key, want 1", n)
	}
	if _, err := crypt.New(awskms.New(srv.Client(), "key-b")).Open(ctx, "object:runs/prod/1.json", objs[0]); !errors.Is(err, crypt.ErrWrongKey) {
		t.Errorf("another KMS key: %v; want ErrWrongKey", err)
	}
	if _, err := crypt.New(awskms.New(srv.Client(), "missing-key")).Seal(ctx, "state:state", secret); err == nil || !strings.Contains(err.Error(), "NotFoundException") {
		t.Errorf("sealing with a missing KMS key: %v; want the KMS error", err)
	}
}
