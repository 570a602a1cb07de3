package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// stateShow is kyku state show NAME: one resource instance of the state
// as `tofu state show` prints one: its address, then a resource block of
// its attributes as the state holds them, a sensitive one shown as
// (sensitive value). The state is read under the lock and not written.
func stateShow(ctx context.Context, w io.Writer, e *engine.Engine, name string) error {
	r, err := e.StateResource(ctx, name)
	if err != nil {
		return err
	}
	a, _ := value.ParseAddress(name)
	_, err = io.WriteString(w, showResource(r, a.Name))
	return err
}

// showResource renders r (a managed resource: Kyku's model holds no data
// sources), whose address without its index is base.
func showResource(r *state.Resource, base string) string {
	label, typ := base, r.Type
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		label = base[i+1:]
	}
	// A Terraform resource's outputs are its attributes; a Kyku type's are
	// what it reports beside the properties it was applied with and its ID.
	attrs := maps.Clone(r.Config)
	if attrs == nil {
		attrs = map[string]any{}
	}
	maps.Copy(attrs, r.Outputs)
	if _, ok := attrs["id"]; !ok && r.ProviderID != "" {
		attrs["id"] = r.ProviderID
	}
	sensitive := r.Sensitive
	if t, hcl := hclKykuType(base, r); hcl {
		// Kyku's type in HCL (kyku_vm.web): named as HCL and the
		// Terraform state name it (kyku_vm, public_ip, cloud_name).
		typ, attrs, sensitive = t.HCLType(), hclAttrs(attrs, r.CloudName), hclNames(r.Sensitive)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s:\nresource %s %s {\n", r.Name, strconv.Quote(typ), strconv.Quote(label))
	keys := slices.Sorted(maps.Keys(attrs))
	width := 0
	for _, k := range keys {
		width = max(width, len(k))
	}
	for _, k := range keys {
		v := "(sensitive value)"
		if !slices.Contains(sensitive, k) {
			v = showValue(attrs[k], "    ")
		}
		fmt.Fprintf(&b, "    %-*s = %s\n", width, k, v)
	}
	b.WriteString("}\n")
	return b.String()
}

// showValue is v in HCL's syntax, nested lines indented by indent and
// four spaces more for each level.
func showValue(v any, indent string) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case json.Number:
		return x.String()
	case []any:
		if len(x) == 0 {
			return "[]"
		}
		var b strings.Builder
		b.WriteString("[\n")
		for _, e := range x {
			fmt.Fprintf(&b, "%s    %s,\n", indent, showValue(e, indent+"    "))
		}
		return b.String() + indent + "]"
	case map[string]any:
		if len(x) == 0 {
			return "{}"
		}
		var b strings.Builder
		b.WriteString("{\n")
		for _, k := range slices.Sorted(maps.Keys(x)) {
			fmt.Fprintf(&b, "%s    %s = %s\n", indent, strconv.Quote(k), showValue(x[k], indent+"    "))
		}
		return b.String() + indent + "}"
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(data)
}
