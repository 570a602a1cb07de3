package tfplugin

import "errors"

// ErrNotSent marks a call that failed before its request reached the
// provider (the type's schema, encoding a value): the provider did
// nothing, so an ApplyResourceChange that fails so made no object.
var ErrNotSent = errors.New("the request was not sent to the provider")

// notSent marks err, the failure of a call before its request was sent;
// its text is err's.
func notSent(err error) error { return notSentError{err} }

type notSentError struct{ err error }

func (e notSentError) Error() string        { return e.err.Error() }
func (e notSentError) Unwrap() error        { return e.err }
func (e notSentError) Is(target error) bool { return target == ErrNotSent }
