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
