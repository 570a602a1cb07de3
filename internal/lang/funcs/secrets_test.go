package funcs

import (
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/lang/marks"
)

// TestErrorsNeverQuoteSecrets: a call that fails on a sensitive argument
// says why without its value, whichever function quotes what (go-cty's
// stdlib quotes patterns, formats and inputs; ours paths and keys). The
// same call on the plain value shows it, so the test can fail.
func TestErrorsNeverQuoteSecrets(t *testing.T) {
	const secret = "hunter2-s3cret"
	for _, tc := range []struct{ name, expr string }{
		{"parseint", `parseint(SECRET, 2)`},
		{"tonumber", `tonumber(SECRET)`},
		{"tobool", `tobool(SECRET)`},
		{"base64decode", `base64decode("!${SECRET}")`},
		{"base64gunzip", `base64gunzip("!${SECRET}")`},
		{"urldecode", `urldecode("%zz${SECRET}")`},
		{"regex pattern", `regex("(${SECRET}", "x")`},
		{"yamldecode", `yamldecode("a: !${SECRET} x")`},
		{"fileset", `fileset(SECRET, "[")`},
		{"filemd5", `filemd5(SECRET)`},
		{"templatefile", `templatefile(SECRET, {})`},
		{"cidrhost", `cidrhost(SECRET, 1)`},
		{"cidrcontains", `cidrcontains("10.0.0.0/8", SECRET)`},
		{"file", `file(SECRET)`},
		{"lookup", `lookup({a = 1}, SECRET)`},
		{"uuidv5", `uuidv5(SECRET, "x")`},
		{"timecmp", `timecmp(SECRET, "2017-11-22T00:00:00Z")`},
		{"timeadd", `timeadd(SECRET, "1h")`},
		{"formatdate", `formatdate("YYYY", SECRET)`},
		{"rsadecrypt", `rsadecrypt(SECRET, "key")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, sensitive := range []bool{false, true} {
				ctx := docsContext(t)
				v := cty.StringVal(secret)
				if sensitive {
					v = v.Mark(marks.Sensitive)
				}
				ctx.Variables["SECRET"] = v
				_, diags := evalConsole(ctx, tc.expr)
				if !diags.HasErrors() {
					t.Fatalf("%s did not fail", tc.expr)
				}
				msg := diags.Error()
				switch {
				case !sensitive && !strings.Contains(msg, "hunter2"):
					t.Fatalf("the error of %s on a plain value does not show it, so this case proves nothing: %s", tc.expr, msg)
				case sensitive && strings.Contains(msg, "hunter2"):
					t.Errorf("the error of %s quotes the sensitive value: %s", tc.expr, msg)
				case sensitive && !strings.Contains(msg, "sensitive"):
					t.Errorf("the error of %s does not say a sensitive value was there: %s", tc.expr, msg)
				}
			}
		})
	}
}
