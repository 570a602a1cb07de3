package statemgrtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/crypt"
)

// SealedFactory is a Factory whose backends seal with codec (nil: clear).
type SealedFactory func(t *testing.T, codec statemgr.Codec) statemgr.Backend

// RawReader returns every object of t's store as stored, by name.
type RawReader func(t *testing.T) map[string][]byte

// SealedStore is a SealedFactory and the RawReader of the same stores.
type SealedStore struct {
	New SealedFactory
	Raw RawReader
}

// SharedSealedStore builds a SealedStore: newStore makes a fresh store location once per test, open makes
// each Backend on it, raw reads it byte for byte (every object, file or
// document there is).
func SharedSealedStore[S any](newStore func(t *testing.T) S, open func(t *testing.T, store S, codec statemgr.Codec) statemgr.Backend,
	raw func(t *testing.T, store S) map[string][]byte) SealedStore {
	get := perTest(newStore)
	return SealedStore{
		New: func(t *testing.T, c statemgr.Codec) statemgr.Backend { return open(t, get(t), c) },
		Raw: func(t *testing.T) map[string][]byte { return raw(t, get(t)) },
	}
}

// TestCodec returns a passphrase codec with a cheap scrypt cost (tests only).
func TestCodec(t testing.TB, passphrase string) *crypt.Codec {
	t.Helper()
	k, err := crypt.NewPassphrase(passphrase, "KYKU_STATE_PASSPHRASE", 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	return crypt.New(k)
}

// Secrets are property values the encryption tests put everywhere and then
// look for in the stored bytes.
var Secrets = []string{"s3cr3t-db-password-9f2a", "198.51.100.77", "ssh-ed25519 AAAAC3NzaSecretKey", "https://internal.example.net/hook"}

func secretResource(name string) *state.Resource {
	r := NewResource(name, 1)
	r.Config["password"] = Secrets[0]
	r.Config["userData"] = map[string]any{"hook": Secrets[3]}
	r.Outputs["publicIp"] = Secrets[1]
	return r
}

// RunEncrypted runs the whole conformance suite through a codec, then
// checks that nothing is stored in clear, that reading without the key or
// with a wrong one fails (and overwrites nothing), and that Reseal encrypts
// a store written in clear.
func RunEncrypted(t *testing.T, s SealedStore) {
	newBackend, raw := s.New, s.Raw
	ctx := context.Background()
	codec := TestCodec(t, "conformance passphrase")
	t.Run("Suite", func(t *testing.T) {
		Run(t, func(t *testing.T) statemgr.Backend { return newBackend(t, codec) })
	})

	t.Run("nothing stored in clear", func(t *testing.T) {
		b := newBackend(t, codec)
		writeSecrets(t, b, true)
		assertNoSecrets(t, raw(t))
		other := newBackend(t, codec)
		got, err := other.Read(ctx)
		if err != nil || got.Resources["db"].Config["password"] != Secrets[0] {
			t.Fatalf("Read through the codec = %v, %v; want the secret back", got, err)
		}
	})

	t.Run("without the key, or with another, nothing reads and nothing is overwritten", func(t *testing.T) {
		writeSecrets(t, newBackend(t, codec), true)
		before := raw(t)
		for name, c := range map[string]statemgr.Codec{"no key": nil, "wrong key": TestCodec(t, "not the right passphrase")} {
			b := newBackend(t, c)
			want := statemgr.ErrEncrypted
			if c != nil {
				want = crypt.ErrWrongKey
			}
			if f, err := b.Read(ctx); !errors.Is(err, want) {
				t.Errorf("%s: Read = %v, %v; want an error wrapping %v", name, f, err, want)
			}
			if _, err := b.Entries(ctx); !errors.Is(err, want) {
				t.Errorf("%s: Entries error %v; want %v", name, err, want)
			}
			if _, err := b.GetObject(ctx, "plans/prod/pr-1.json"); !errors.Is(err, want) {
				t.Errorf("%s: GetObject error %v; want %v", name, err, want)
			}
			list, _ := b.ListBackups(ctx)
			if len(list) == 0 {
				t.Fatalf("%s: no backups listed", name)
			}
			if _, err := b.ReadBackup(ctx, list[0].Key); !errors.Is(err, want) {
				t.Errorf("%s: ReadBackup error %v; want %v", name, err, want)
			}
			for _, force := range []bool{false, true} {
				if err := b.Write(ctx, NewState("lin-1", 9, "web"), statemgr.WriteOptions{Force: force}); err == nil {
					t.Errorf("%s: Write(force %v) over encrypted state it cannot read succeeded", name, force)
				}
			}
		}
		if d := cmp.Diff(before, raw(t)); d != "" {
			t.Errorf("stored objects changed (-before +after):\n%s", d)
		}
	})

	t.Run("Reseal encrypts a store written in clear", func(t *testing.T) {
		writeSecrets(t, newBackend(t, nil), false)
		rekeyCodec := codec.AcceptingClear()
		r, err := statemgr.Reseal(ctx, newBackend(t, rekeyCodec), NewLockInfo("rekey"))
		if err != nil {
			t.Fatalf("Reseal: %v", err)
		}
		if !r.State || r.Backups != 1 || r.Objects != 2 {
			t.Errorf("Reseal = %+v, want the state, 1 backup and 2 objects", r)
		}
		assertNoSecrets(t, raw(t))
		b := newBackend(t, codec)
		if f, err := b.Read(ctx); err != nil || f.Metadata.Serial != 1 {
			t.Errorf("after Reseal: Read = %v, %v; want serial 1 unchanged", f, err)
		}
		if _, err := newBackend(t, nil).Read(ctx); !errors.Is(err, statemgr.ErrEncrypted) {
			t.Errorf("after Reseal, a reader without the key: %v; want ErrEncrypted", err)
		}
	})
}

// writeSecrets stores the secrets in every kind of object: state, a
// journal entry (cleared again unless keepJournal), a backup, a saved plan
// and an audit record.
func writeSecrets(t *testing.T, b statemgr.Backend, keepJournal bool) {
	t.Helper()
	ctx := context.Background()
	st := NewState("lin-1", 1)
	st.Resources["db"] = secretResource("db")
	st.Outputs = map[string]any{"hook": Secrets[3]}
	mustRead(t, b)
	mustWrite(t, b, st, statemgr.WriteOptions{})
	if err := b.Append(ctx, state.Entry{Seq: 1, BaseSerial: 1, Lineage: "lin-1", Op: state.OpPut, Name: "key", Resource: secretResource("key")}); err != nil {
		t.Fatalf("Append: %v", err)
	}
	if _, err := b.Backup(ctx, st); err != nil {
		t.Fatalf("Backup: %v", err)
	}
	for _, k := range []string{"plans/prod/pr-1.json", "runs/prod/1.json"} {
		if err := b.PutObject(ctx, k, []byte(fmt.Sprintf(`{"secrets":%q}`, Secrets))); err != nil {
			t.Fatalf("PutObject: %v", err)
		}
	}
	es, err := b.Entries(ctx)
	if err != nil || len(es) != 1 || es[0].Resource.Config["password"] != Secrets[0] {
		t.Fatalf("Entries = %v, %v; want the one entry with its secret", es, err)
	}
	if !keepJournal {
		if err := b.ClearJournal(ctx); err != nil {
			t.Fatalf("ClearJournal: %v", err)
		}
	}
}

// AssertNoSecrets fails t if any stored object holds any of Secrets (or
// one of their JSON-escaped forms).
func assertNoSecrets(t *testing.T, objects map[string][]byte) {
	t.Helper()
	if len(objects) == 0 {
		t.Fatal("the raw reader found no objects at all")
	}
	for name, data := range objects {
		assertNoSecretsIn(t, name, data)
	}
}

func assertNoSecretsIn(t *testing.T, name string, data []byte) {
	t.Helper()
	for _, s := range Secrets {
		for _, form := range []string{s, fmt.Sprintf("%q", s)[1 : len(s)+1]} {
			if bytes.Contains(data, []byte(form)) {
				t.Errorf("%s holds %q in clear", name, s)
			}
		}
	}
}
