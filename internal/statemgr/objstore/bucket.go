package objstore

import (
	"context"
	"errors"
	"time"
)

// Bucket is what a provider implements for a Backend. Keys are full object
// keys (the prefix included).
//
// Get, Put and Delete return the store's own error, marked (Mark) with
// ErrNotFound or ErrPrecondition where it means that; the Backend says what
// the call was for (Config.Explain). List and DeleteAll explain their
// errors themselves, naming the key that failed.
type Bucket interface {
	// Get fetches key.
	Get(ctx context.Context, key string) (Object, error)
	// Put writes data at key under c and returns the new version. A
	// conditional put whose earlier attempt landed although its answer was
	// lost comes back as a precondition failure: the Backend reads the
	// object back and accepts it when it holds exactly its bytes.
	Put(ctx context.Context, key string, data []byte, c Cond) (Version, error)
	// Delete removes key only while its version is v. ambiguous reports
	// that an attempt may have landed before the one that failed (then a
	// missing key or a moved version may be our own delete).
	Delete(ctx context.Context, key string, v Version) (ambiguous bool, err error)
	// DeleteAll removes keys unconditionally; a missing key is not an error.
	DeleteAll(ctx context.Context, keys []string) error
	// List returns the full keys under prefix, sorted, across all pages.
	List(ctx context.Context, prefix string) ([]string, error)
}

// Version names one stored version of an object as the store's
// conditional requests take it (an S3 ETag, a GCS generation). It is opaque
// here; "" is none.
type Version string

// Object is one fetched object.
type Object struct {
	Data    []byte
	Version Version
	// Modified is when the store last wrote it: the age of a lock whose
	// holder's clock runs behind, or of a lock object that is not a lock.
	Modified time.Time
}

// Cond is the precondition of a Put; the zero value is none.
type Cond struct {
	IfAbsent bool    // only if no object is at the key
	IfMatch  Version // only if the object at the key is this version
}

// ErrNotFound and ErrPrecondition are how a Bucket marks a missing key and
// a failed precondition.
var (
	ErrNotFound     = errors.New("no such key")
	ErrPrecondition = errors.New("precondition failed")
)

// Mark returns err marked as kind (ErrNotFound or ErrPrecondition): it
// reads as err, and errors.Is finds kind as well as what err wraps. A nil
// err stays nil.
func Mark(err, kind error) error {
	if err == nil {
		return nil
	}
	return &marked{err: err, kind: kind}
}

type marked struct{ err, kind error }

func (m *marked) Error() string   { return m.err.Error() }
func (m *marked) Unwrap() []error { return []error{m.err, m.kind} }

func isNotFound(err error) bool     { return errors.Is(err, ErrNotFound) }
func isPrecondition(err error) bool { return errors.Is(err, ErrPrecondition) }

// lockWaitKey carries, on the context of a call made while Lock waits, when
// that wait ends.
type lockWaitKey struct{}

// LockWaitEnds reports when the Lock wait that ctx belongs to ends. A
// Bucket that retries transient errors on its own may stop retrying then
// (after one whole attempt at least): riding out network errors and waiting
// for a holder share --lock-timeout.
func LockWaitEnds(ctx context.Context) (time.Time, bool) {
	t, ok := ctx.Value(lockWaitKey{}).(time.Time)
	return t, ok
}
