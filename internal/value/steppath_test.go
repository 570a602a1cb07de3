package value

import "testing"

// TestParsePathAndPathOf: a whole path reads into steps, written back as
// Kyku names it (a map's key that is an identifier after a "."); what is
// not a path from start to end is refused.
func TestParsePathAndPathOf(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{".password", ".password", true},
		{`["token"]`, ".token", true},
		{`["api-key"][0].x`, `["api-key"][0].x`, true},
		{".list[12]", ".list[12]", true},
		{`["0a"]`, `["0a"]`, true},
		{"[*].id", "[*].id", true},
		{"", "", false},
		{".a b", "", false},
		{"[01]", "", false},
		{`["a]`, "", false},
		{"password", "", false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			steps, ok := ParsePath(tc.in)
			if ok != tc.ok {
				t.Fatalf("ParsePath(%q) ok = %v, want %v", tc.in, ok, tc.ok)
			}
			if ok && PathOf(steps) != tc.want {
				t.Errorf("PathOf(ParsePath(%q)) = %q, want %q", tc.in, PathOf(steps), tc.want)
			}
		})
	}
}
