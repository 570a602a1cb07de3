package provider

import "errors"

// ErrUnusableAnswer marks a kept answer (Provider.Answered) that cannot
// be used: it does not decode with the provider's schema, or its object
// is not wholly known. The intent it would close stays open, refused.
// Answered's other failures (the provider could not start, or tell its
// schema) are errors of the run, not of the answer.
var ErrUnusableAnswer = errors.New("the kept answer cannot be used")

// UnusableAnswer marks err as ErrUnusableAnswer; its text is err's.
func UnusableAnswer(err error) error {
	if err == nil {
		return nil
	}
	return unusable{err}
}

type unusable struct{ err error }

func (e unusable) Error() string        { return e.err.Error() }
func (e unusable) Unwrap() error        { return e.err }
func (e unusable) Is(target error) bool { return target == ErrUnusableAnswer }
