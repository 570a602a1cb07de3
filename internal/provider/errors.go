package provider

import (
	"errors"
	"fmt"
	"time"
)

// ErrNotFound is returned (wrapped) when a cloud object does not exist.
var ErrNotFound = errors.New("not found")

// NotFound says that what (e.g. "network 4711") does not exist: it wraps
// ErrNotFound.
func NotFound(what string) error { return fmt.Errorf("%s: %w", what, ErrNotFound) }

// IsNotFound reports whether err (or anything it wraps) is ErrNotFound.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// ErrNoAttribute is returned (wrapped) by AttributeType for an attribute
// the type does not have, where the provider knows its every attribute:
// a reference to it is refused, not read as null.
var ErrNoAttribute = errors.New("no such attribute")

// ErrNotSupported is returned (wrapped) by a method a provider has nothing
// to serve for: data sources of a provider that has none.
var ErrNotSupported = errors.New("not supported")

// TransientError marks an error worth retrying (throttling, 5xx, eventual
// consistency). RetryAfter, when set, is the server's hint.
type TransientError struct {
	Err        error
	RetryAfter time.Duration
}

func (e *TransientError) Error() string { return "transient: " + e.Err.Error() }
func (e *TransientError) Unwrap() error { return e.Err }

// Transient wraps err as retryable.
func Transient(err error) error {
	if err == nil {
		return nil
	}
	return &TransientError{Err: err}
}

// IsTransient reports whether err (or anything it wraps) is retryable.
func IsTransient(err error) bool {
	var t *TransientError
	return errors.As(err, &t)
}

// PartialError is a create or update that failed after the cloud object
// came to exist (a Terraform provider's ApplyResourceChange answering a
// new state with its error): the engine records Object in state, so the
// next run sees it, and reports the change failed.
type PartialError struct {
	Object Object
	Err    error
}

func (e *PartialError) Error() string { return e.Err.Error() }
func (e *PartialError) Unwrap() error { return e.Err }
