package envname_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kyku/action/internal/envname"
)

func TestCheck(t *testing.T) {
	for _, tt := range []struct {
		name string
		why  string // "" when valid
	}{
		{"", ""},
		{"prod", ""},
		{"eu-west_1", ""},
		{"_x", ""},
		{"A9", ""},
		{strings.Repeat("a", 64), ""},
		{strings.Repeat("a", 65), "65 characters, more than 64"},
		{"../../x", `it holds '.'`},
		{"prod.eu", `it holds '.'`},
		{"a/b", `it holds '/'`},
		{`a\b`, `it holds '\\'`},
		{"-e", "it starts with '-'"},
		{"pröd", `it holds 'ö'`},
		{"a b", `it holds ' '`},
		{"a\x00", `it holds '\x00'`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := envname.Check(tt.name)
			if tt.why == "" {
				if err != nil || !envname.Valid(tt.name) {
					t.Fatalf("Check(%q) = %v, want nil", tt.name, err)
				}
				return
			}
			var e *envname.Error
			if !errors.As(err, &e) || envname.Valid(tt.name) {
				t.Fatalf("Check(%q) = %v, want an *Error", tt.name, err)
			}
			if !strings.Contains(err.Error(), tt.why) || !strings.Contains(err.Error(), envname.Rule) {
				t.Errorf("Check(%q) = %q, want it to say %q and the rule", tt.name, err, tt.why)
			}
		})
	}
}
