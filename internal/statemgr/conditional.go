package statemgr

import (
	"context"
	"errors"
)

// ErrExists is returned (wrapped) by CreateObject when an object is
// already at the key.
var ErrExists = errors.New("already exists")

// ErrNotConditional is returned (wrapped) by a Conditional method of a
// backend whose store does not enforce conditional writes (a Spaces
// backend with lock: false): nothing can be written once across
// processes there.
var ErrNotConditional = errors.New("the backend does not enforce conditional writes")

// Version names one stored version of an object as a backend's
// conditional writes take it (an S3 ETag, a GCS generation). Opaque; ""
// is none.
type Version string

// Conditional is the conditional writes a lock is made of, offered for
// other records several processes write on one store: a record created
// once across them (a webhook delivery taken), and a record one of them
// holds and renews while another may take it over (a lease). Keys are
// object keys, as Objects takes them; the data is sealed with the
// backend's Codec like any object's.
//
// Implementations: objstore's (S3, GCS, Spaces). A write whose answer was
// lost but which landed is recognised as the caller's own (the object
// holds exactly its bytes), so a retry never reports a conflict with
// itself.
type Conditional interface {
	// CreateObject stores data at key only if no object is there; when
	// one is, it returns an error wrapping ErrExists and leaves it alone.
	CreateObject(ctx context.Context, key string, data []byte) (Version, error)
	// ReadObject returns the data at key and its version; a missing key
	// wraps ErrNotFound.
	ReadObject(ctx context.Context, key string) ([]byte, Version, error)
	// ReplaceObject stores data at key only while the object there is at
	// version v; when it moved on or is gone, an error wrapping
	// ErrConflict.
	ReplaceObject(ctx context.Context, key string, data []byte, v Version) (Version, error)
	// DeleteObject removes key only while its version is v: an error
	// wrapping ErrConflict when it moved on, nil when it is gone.
	DeleteObject(ctx context.Context, key string, v Version) error
}
