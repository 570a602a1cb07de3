package tenancy

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestShapeMatchesTypes: the keys the policy file's check accepts are the
// keys the types decode, so a field added to Rule (or a grant) without
// its key in policyShape is caught here, not as "unknown key" in a
// user's file.
func TestShapeMatchesTypes(t *testing.T) {
	rule := policyShape.fields["repositories"].elem
	for _, tc := range []struct {
		name  string
		shape *shape
		typ   reflect.Type
	}{
		{"policy", policyShape, reflect.TypeOf(Policy{})},
		{"rule", rule, reflect.TypeOf(Rule{})},
		{"bucket", rule.fields["buckets"].elem, reflect.TypeOf(Bucket{})},
		{"provider grant", rule.fields["provider-grants"].elem, reflect.TypeOf(ProviderGrant{})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tags []string
			for i := range tc.typ.NumField() {
				tags = append(tags, strings.Split(tc.typ.Field(i).Tag.Get("yaml"), ",")[0])
			}
			sort.Strings(tags)
			if diff := cmp.Diff(tags, keys(tc.shape)); diff != "" {
				t.Errorf("policyShape keys (-yaml tags +shape):\n%s", diff)
			}
		})
	}
}
