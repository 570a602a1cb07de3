package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/kyku/action/internal/diag"
)

// TestSizeBoundWording: a size limit names its unit in the singular for
// one ("fewer than 1 element") and in the plural otherwise.
func TestSizeBoundWording(t *testing.T) {
	for _, tc := range []struct {
		decl, vars, want string
	}{
		{`{ type: list, min: 1 }`, `[]`, "has fewer than 1 element"},
		{`{ type: list, max: 2 }`, `[a, b, c]`, "has more than 2 elements"},
		{`{ type: map, min: 1 }`, `{}`, "has fewer than 1 entry"},
		{`{ type: map, max: 2 }`, `{ a: x, b: y, c: z }`, "has more than 2 entries"},
		{`{ type: string, max: 1 }`, `ab`, "has more than 1 character"},
		{`{ type: string, min: 3 }`, `ab`, "has fewer than 3 characters"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			yaml := "variables:\n  v: " + tc.decl + "\nenvironments:\n  prod: { variables: { v: " + tc.vars + " } }\nresources: {}\n"
			_, err := ParseEnv([]File{{Name: "kyku.yaml", Data: []byte(yaml)}}, Inputs{Environment: "prod"})
			var ds diag.Diagnostics
			if !errors.As(err, &ds) || !strings.HasSuffix(err.Error(), tc.want) {
				t.Errorf("ParseEnv: %v, want an error ending in %q", err, tc.want)
			}
		})
	}
}
