package value

import (
	"errors"
	"testing"
)

// TestPathErrorMasked: a path error names the step and why it does not
// apply; its masked form, for a sensitive value, shows neither the value
// read into, nor a map's keys, nor a list's length.
func TestPathErrorMasked(t *testing.T) {
	v := []any{map[string]any{"data": "pem-s3cr3t", "s3cr3t-key": 1.0, "none": nil}}
	for _, tc := range []struct{ path, masked string }{
		{`[1]`, "[1]: index out of range (sensitive)"},
		{`[0].nope`, `["nope"]: no such key (sensitive)`},
		{`[0].data[0]`, "[0]: cannot read into a string (sensitive)"},
		{`[0]["s3cr3t-key"].x`, `["x"]: cannot read into a number (sensitive)`},
		{`[0].none.x`, `["x"]: the value is null (sensitive)`},
		{`.x`, `["x"]: a list has elements by number, not by key (sensitive)`},
		{`[0][0]`, "[0]: a map or object has entries by key, not by number (sensitive)"},
		{`[*].nope`, `["nope"]: no such key (sensitive)`},
	} {
		_, _, err := Walk(v, Ref{Resource: "r", Attr: "a", Path: tc.path}.Steps())
		var pe *PathError
		if !errors.As(err, &pe) {
			t.Errorf("Walk(%s) error %v is not a *PathError", tc.path, err)
			continue
		}
		if got := pe.Masked(); got != tc.masked {
			t.Errorf("Walk(%s) masked %q, want %q", tc.path, got, tc.masked)
		}
	}
}
