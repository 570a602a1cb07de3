package engine

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/state"
)

// TestSecretBookLearnsSecretParts: of a property secret only in parts,
// the secret book (which scrubs errors and logs) learns the secret parts,
// not the values beside them; of one secret whole, or with a path it
// cannot read, every value.
func TestSecretBookLearnsSecretParts(t *testing.T) {
	tags := map[string]any{"env": "prod", "token": "tok-s3cr3t"}
	for _, tc := range []struct {
		name   string
		within map[string][]string
		want   []string
	}{
		{"in parts, a map's entry as state writes it", map[string][]string{"tags": {`["token"]`}}, []string{"tok-s3cr3t"}},
		{"in parts, as a plan names it", map[string][]string{"tags": {".token"}}, []string{"tok-s3cr3t"}},
		{"whole", nil, []string{"prod", "tok-s3cr3t"}},
		{"a path it cannot read", map[string][]string{"tags": {"token"}}, []string{"prod", "tok-s3cr3t"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &state.Resource{Sensitive: []string{"tags"}, SensitiveWithin: tc.within, Outputs: map[string]any{"tags": tags, "id": "i-1"}}
			got := appendSecrets(nil, r)
			slices.Sort(got)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
