package suggest

import "testing"

func TestDidYouMean(t *testing.T) {
	names := []string{"name", "host", "revision", "sdktest_item", "plan", "apply"}
	for s, want := range map[string]string{
		"nmae":         ` (did you mean "name"?)`, // a swap is one edit
		"hots":         ` (did you mean "host"?)`,
		"revison":      ` (did you mean "revision"?)`,
		"sdktest_itme": ` (did you mean "sdktest_item"?)`,
		"PLAN":         ` (did you mean "plan"?)`, // case alone
		"pl":           "",                        // too short to guess beyond case
		"destroy":      "",                        // nothing close
		"aplpy":        ` (did you mean "apply"?)`,
	} {
		if got := DidYouMean(s, names); got != want {
			t.Errorf("DidYouMean(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"name", "name", 0},
		{"nmae", "name", 1}, {"ab", "ba", 1}, {"kitten", "sitting", 3}, {"ca", "abc", 3},
	} {
		if got := distance(c.a, c.b); got != c.want {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := distance(c.b, c.a); got != c.want {
			t.Errorf("distance(%q, %q) = %d, want %d", c.b, c.a, got, c.want)
		}
	}
}

func TestTerraform(t *testing.T) {
	for _, c := range []struct{ s, want string }{
		{"modul", ` Did you mean "module"?`}, // one edit
		{"nett", ` Did you mean "net"?`},     // one edit, a short name
		{"rot", ` Did you mean "net"?`},      // the first within reach, in order: not the closest (root)
		{"moduleses", ""},                    // three edits: none
		{"cwd", ` Did you mean "cwd"?`},      // itself
	} {
		if got := Terraform(c.s, []string{"cwd", "module", "net", "root"}); got != c.want {
			t.Errorf("Terraform(%q) = %q, want %q", c.s, got, c.want)
		}
	}
}
