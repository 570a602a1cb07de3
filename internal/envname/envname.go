package envname

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxLen is the longest environment name, in characters.
const MaxLen = 64

// Rule says what a name may hold, for messages.
const Rule = "letters, digits, '_' and '-' (not first), at most 64 characters"

// Error is a name that breaks the rule.
type Error struct {
	Name string
	Why  string // what is wrong with it
}

func (e *Error) Error() string {
	return "environment name " + quote(e.Name) + " is invalid: " + e.Why + " (use " + Rule + ")"
}

// Valid reports whether name obeys the rule; "" (the default environment)
// does.
func Valid(name string) bool { return Check(name) == nil }

// Check returns nil when name obeys the rule (or is empty), else an *Error
// saying what is wrong with it.
func Check(name string) error {
	if name == "" {
		return nil
	}
	if len(name) > MaxLen {
		return &Error{Name: name, Why: fmt.Sprintf("%d characters, more than %d", utf8.RuneCountInString(name), MaxLen)}
	}
	if name[0] == '-' {
		return &Error{Name: name, Why: "it starts with '-'"}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			r, _ := utf8.DecodeRuneInString(name[i:])
			return &Error{Name: name, Why: "it holds " + strconv.QuoteRune(r)}
		}
	}
	return nil
}

// quote shows what was given, cut short and Go-quoted.
func quote(s string) string {
	if utf8.RuneCountInString(s) > 70 {
		s = string([]rune(s)[:69]) + "…"
	}
	return strconv.Quote(s)
}
