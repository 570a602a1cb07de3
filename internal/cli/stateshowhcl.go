package cli

import (
	"strings"

	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/state"
)

// hclKykuType is r's Kyku type when r is one of Kyku's own types declared
// in HCL (its address, without its index, base: kyku_vm.web).
func hclKykuType(base string, r *state.Resource) (*schema.Type, bool) {
	i := strings.LastIndexByte(base, '.')
	if i < 0 {
		return nil, false
	}
	t, ok := schema.ByHCLType(base[strings.LastIndexByte(base[:i], '.')+1 : i])
	if !ok || t.Name != r.Type {
		return nil, false
	}
	return t, true
}

// hclAttrs are attrs named in snake case, with the object's cloud name:
// the attributes a Terraform state holds of an object of Kyku's types.
func hclAttrs(attrs map[string]any, cloudName string) map[string]any {
	out := make(map[string]any, len(attrs)+1)
	for k, v := range attrs {
		out[schema.HCLName(k)] = v
	}
	if cloudName != "" {
		out["cloud_name"] = cloudName
	}
	return out
}

// hclNames are names in snake case.
func hclNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = schema.HCLName(n)
	}
	return out
}
