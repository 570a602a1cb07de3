package value

import (
	"encoding/json"
	"fmt"
)

// A PathError is Walk's error: Step does not apply to the value it reads.
type PathError struct {
	Step   Step
	why    string // may quote the value or list a map's keys
	masked string // why, saying nothing of the value's content
}

func pathErr(st Step, why, detail string) *PathError {
	return &PathError{Step: st, why: why + detail, masked: why}
}

func (e *PathError) Error() string { return e.Step.String() + ": " + e.why }

// Masked is the error for a sensitive value: it names the step and why it
// does not apply, never the value's text, a map's keys or a list's
// length.
func (e *PathError) Masked() string { return e.Step.String() + ": " + e.masked + " (sensitive)" }

// KindOf names the kind of a canonical value, for messages: string,
// number, bool, list, map or null.
func KindOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "list"
	case map[string]any:
		return "map"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// A RefError is ResolveChecked's error: the path of reference Ref does
// not apply to the value it reads (Err, a *PathError).
type RefError struct {
	Ref Ref
	Err error
}

func (e *RefError) Error() string { return e.Ref.String() + ": " + e.Err.Error() }

func (e *RefError) Unwrap() error { return e.Err }

// Masked is the error for a reference to a sensitive value: the path and
// why it does not apply, never the value's text, a map's keys or a list's
// length.
func (e *RefError) Masked() string {
	if pe, ok := e.Err.(*PathError); ok {
		return e.Ref.String() + ": " + pe.Masked()
	}
	return e.Ref.String() + ": (sensitive)"
}
