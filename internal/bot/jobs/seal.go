package jobs

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// A record is stored sealed: its JSON, and an HMAC-SHA256 over the object
// key and every byte of that JSON, under a key derived from the webhook
// secret (Options.Secret) apart from GitHub's use of it:
//
//	{"format": 2, "record": {"id": …, "event": …, "body": …, "mac": …, "accepted": …,
//	                         "acceptedBy": …, "takeovers": …, "steps": {…}}, "sig": "<hex>"}
//
// So every field is covered — what kind of job it is, its ID (and so its
// key), when and by whom it was accepted, how often it was taken over, the
// steps done — not only the body GitHub signed: a record changed in the
// store, or copied under another ID, is refused (ErrForged). Records of
// the earlier format, which signed only the body, are refused too
// (ErrUnsigned): nothing proves their other fields are the bot's.

// recordFormat is the sealed format's version.
const recordFormat = 2

// ErrForged: a record whose signature does not verify with the webhook
// secret (changed in the store, copied under another key, or written with
// another secret). It is not run.
var ErrForged = errors.New("its signature does not verify with the webhook secret")

// ErrUnsigned: a record of the earlier format, whose signature covered its
// body only. It is not run.
var ErrUnsigned = errors.New("it was written by an earlier version of Kyku, which signed its body only")

// errNoSecret: a Store without Options.Secret writes and reads nothing.
var errNoSecret = errors.New("job records: no webhook secret to sign them with")

type sealed struct {
	Format int             `json:"format"`
	Record json.RawMessage `json:"record"`
	Sig    string          `json:"sig"`
}

// recordKey derives the records' key from the webhook secret: one HMAC
// for records, apart from the HMAC GitHub makes of deliveries with it.
func recordKey(secret []byte) []byte {
	if len(secret) == 0 {
		return nil
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("kyku job record key"))
	return m.Sum(nil)
}

func (s *Store) sign(key string, record []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	fmt.Fprintf(m, "kyku job record %d\n%s\n", recordFormat, key)
	m.Write(record)
	return m.Sum(nil)
}

// seal is the stored form of rec at key.
func (s *Store) seal(key string, rec Record) ([]byte, error) {
	if s.key == nil {
		return nil, errNoSecret
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	return json.Marshal(sealed{Format: recordFormat, Record: data, Sig: hex.EncodeToString(s.sign(key, data))})
}

// open reads the record stored at key, refusing it unless its signature
// verifies and its ID is the key's.
func (s *Store) open(key string, data []byte) (Record, error) {
	if s.key == nil {
		return Record{}, errNoSecret
	}
	var env sealed
	if err := json.Unmarshal(data, &env); err != nil {
		return Record{}, err
	}
	switch {
	case env.Format == 0 && env.Record == nil:
		return Record{}, ErrUnsigned
	case env.Format != recordFormat:
		return Record{}, fmt.Errorf("unknown record format %d", env.Format)
	}
	sig, err := hex.DecodeString(env.Sig)
	if err != nil || !hmac.Equal(sig, s.sign(key, env.Record)) {
		return Record{}, ErrForged
	}
	var rec Record
	if err := json.Unmarshal(env.Record, &rec); err != nil {
		return Record{}, err
	}
	if rec.ID == "" || Key(rec.ID) != key {
		return Record{}, errors.New("its ID does not match its key")
	}
	return rec, nil
}
