package value

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTemplate: a Template exactly one reference keeps the value's type;
// with text around, each reference reads as text, Unknown where not
// known; a string is text, not read for references; the reference form
// round-trips through JSON and ParseTemplate.
func TestTemplate(t *testing.T) {
	lookup := func(r Ref) (any, bool) {
		switch r {
		case Ref{Resource: "web", Attr: "port"}:
			return 8080.0, true
		case Ref{Resource: "web"}:
			return "i-1", true
		}
		return nil, false
	}
	for _, tt := range []struct {
		text        string
		want        any
		wantUnknown bool
		whole       bool
	}{
		{"${web.port}", 8080.0, false, true},
		{"${web}", "i-1", false, true},
		{"http://${web}:${web.port}/", "http://i-1:8080/", false, false},
		{"db-${db.ip}", "db-" + Unknown, true, false},
		{"${db.ip}", Unknown, true, true},
	} {
		t.Run(tt.text, func(t *testing.T) {
			tp := mustTemplate(t, tt.text)
			got, unknown, err := ResolveChecked(tp, lookup)
			if err != nil || unknown != tt.wantUnknown {
				t.Fatalf("resolve: unknown %v, err %v", unknown, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("value (-want +got):\n%s", diff)
			}
			if _, whole := WholeRef(tp); whole != tt.whole {
				t.Errorf("WholeRef whole %v, want %v", whole, tt.whole)
			}
			b, err := tp.MarshalJSON()
			if err != nil || string(b) != `"`+tt.text+`"` {
				t.Errorf("JSON %s, %v", b, err)
			}
		})
	}
	if got, unknown := Resolve("http://${web}/", lookup); got != "http://${web}/" || unknown {
		t.Errorf("a string resolved to %v (unknown %v): strings are text", got, unknown)
	}
	if _, ok := ParseTemplate("no ${ reference"); ok {
		t.Errorf("ParseTemplate of text without a reference: ok")
	}
}
