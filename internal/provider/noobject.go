package provider

import "errors"

// ErrNoObject marks a failed create that certainly made no object: the
// provider answered so. A failure without it (the plugin gone, the call
// cut short) may have made one.
var ErrNoObject = errors.New("the create made no object")

// NoObject marks err, the failure of a create, as one that made no
// object; its text is err's.
func NoObject(err error) error {
	if err == nil {
		return nil
	}
	return noObject{err}
}

type noObject struct{ err error }

func (e noObject) Error() string { return e.err.Error() }
func (e noObject) Unwrap() error { return e.err }
func (e noObject) Is(target error) bool {
	return target == ErrNoObject
}
