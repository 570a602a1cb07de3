package tfconfig

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/lang/hcldiag"
)

// toDiag turns HCL's error diagnostics into Kyku's (hcldiag.Convert),
// files holding the texts by file name.
func toDiag(hds hcl.Diagnostics, files map[string]*hcl.File) diag.Diagnostics {
	return hcldiag.Convert(hds, func(name string) []byte {
		if f := files[name]; f != nil {
			return f.Bytes
		}
		return nil
	})
}

// warnings are the warnings of hds, in their order, each said as toDiag
// says an error.
func warnings(hds hcl.Diagnostics, files map[string]*hcl.File) []string {
	var out []string
	for _, d := range hds {
		if d.Severity == hcl.DiagWarning {
			w := *d
			w.Severity = hcl.DiagError // what toDiag keeps
			for _, kd := range toDiag(hcl.Diagnostics{&w}, files) {
				out = append(out, kd.String())
			}
		}
	}
	return out
}
