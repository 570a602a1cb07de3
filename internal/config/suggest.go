package config

import "github.com/kyku/action/internal/suggest"

// didYouMean is ` (did you mean "x"?)` for the candidate closest to s, or
// "".
func didYouMean(s string, candidates []string) string { return suggest.DidYouMean(s, candidates) }
