package noun

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		word string
		want string
	}{
		{0, "resource", "0 resources"},
		{1, "resource", "1 resource"},
		{2, "resource", "2 resources"},
		{1, "output", "1 output"},
		{5, "output", "5 outputs"},
		{1, "entry", "1 entry"},
		{2, "entry", "2 entries"},
		{2, "key", "2 keys"},
		{2, "policy file", "2 policy files"},
		{2, "auto-subnet", "2 auto-subnets"},
		{2, "address", "2 addresses"},
		{2, "match", "2 matches"},
		{2, "earlier drift", "2 earlier drifts"},
		{1, "element", "1 element"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := Count(tc.n, tc.word); got != tc.want {
				t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.word, got, tc.want)
			}
		})
	}
}
