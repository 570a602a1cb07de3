package tfcorpus

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePath(t *testing.T) {
	for _, steps := range [][]any{
		{"input"}, {"input", "password"}, {"rule", 0, "port"}, {"tags", "Name.with dots"}, {"m", `q"uote]`, 2},
		{"a-b", "x_y"}, {0}, {},
	} {
		p := joinSteps(steps)
		got, err := parsePath(p)
		if err != nil {
			t.Errorf("parsePath(%q): %v", p, err)
			continue
		}
		if diff := cmp.Diff(steps, got, cmpEmptyAsNil); diff != "" {
			t.Errorf("parsePath(%q) (-want +got):\n%s", p, diff)
		}
	}
	for _, bad := range []string{"x", "[x]", `["open]`, "[1", `["a"`} {
		if _, err := parsePath(bad); err == nil {
			t.Errorf("parsePath(%q): no error", bad)
		}
	}
}

var cmpEmptyAsNil = cmp.Transformer("emptyAsNil", func(s []any) []any {
	if len(s) == 0 {
		return nil
	}
	return s
})
