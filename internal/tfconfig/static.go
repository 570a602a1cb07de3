package tfconfig

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Arguments read when the files are read (a description, an alias, a
// module's source) take constant values, as gohcl decodes them (gohcl
// itself links hclwrite and go-cmp into every command: see
// internal/deptest's startup budget).

// decodeString reads a constant string argument into out.
func decodeString(expr hcl.Expression, out *string) hcl.Diagnostics {
	v, diags := decodeConstant(expr, cty.String)
	if !diags.HasErrors() && !v.IsNull() {
		*out = v.AsString()
	}
	return diags
}

// decodeBool reads a constant bool argument into out.
func decodeBool(expr hcl.Expression, out *bool) hcl.Diagnostics {
	v, diags := decodeConstant(expr, cty.Bool)
	if !diags.HasErrors() && !v.IsNull() {
		*out = v.True()
	}
	return diags
}

func decodeConstant(expr hcl.Expression, ty cty.Type) (cty.Value, hcl.Diagnostics) {
	v, diags := expr.Value(nil)
	if diags.HasErrors() {
		return cty.NullVal(ty), diags
	}
	v, err := convert.Convert(v, ty)
	if err != nil {
		return cty.NullVal(ty), append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Unsuitable value type",
			Detail:   fmt.Sprintf("Unsuitable value: %s", err.Error()),
			Subject:  expr.StartRange().Ptr(),
			Context:  expr.Range().Ptr(),
		})
	}
	if !v.IsKnown() {
		return cty.NullVal(ty), append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Unknown value",
			Detail:   "This value must be known when the configuration is read.",
			Subject:  expr.Range().Ptr(),
		})
	}
	return v, diags
}
