package engine

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/diff"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/value"
)

// An import the cloud would have to replace to match the configuration
// is refused at plan: importing adopts an object, it never destroys one.
// The refusal names what forces the replace, each with the imported value
// against the configured one (sensitive ones masked).

// refuseImportReplace refuses the import of r by id: forced are the
// property changes that cannot be made in place, Old the imported value
// and New the configured one.
func refuseImportReplace(diags *diag.Diagnostics, r *config.Resource, id string, forced []plan.PropChange) {
	what := ""
	if len(forced) > 0 {
		parts := make([]string, len(forced))
		for i, pc := range forced {
			if pc.Sensitive {
				parts[i] = pc.Path + ": the imported and configured values differ (sensitive)"
			} else {
				parts[i] = pc.Path + ": imported " + importedText(pc.Old) + ", configured " + importedText(pc.New)
			}
		}
		what = " (" + strings.Join(parts, "; ") + ")"
	}
	diags.Add(r.Pos, "resource %s: the object to import (id %s) differs in what cannot change in place%s; make the configuration match it, or let Kyku create a new one", value.QuoteName(r.Name), id, what)
}

// importedText shows a value of an import refusal.
func importedText(v any) string {
	switch x := value.Normalize(v).(type) {
	case nil:
		return "not set"
	case string:
		if v == value.Unknown {
			return "known after apply"
		}
		return strconv.Quote(x)
	}
	return oneLine(value.Text(v))
}

// importForced are the changes a provider's plan of an import names as
// forcing a replace (its RequiresReplace): under each path, the imported
// values (prior) against the configured ones. Where those compare equal
// in Kyku's eyes (an empty map against none), the attribute's two values
// as they are.
func importForced(paths []provider.Forced, prior, configured map[string]any, sensitive []string) []plan.PropChange {
	all := diff.Values(prior, configured, sensitive)
	var out []plan.PropChange
	for _, f := range paths {
		n := len(out)
		for _, pc := range all {
			if f.Path == "" || pc.Path == f.Path || strings.HasPrefix(pc.Path, f.Path+".") || strings.HasPrefix(pc.Path, f.Path+"[") {
				out = append(out, pc)
			}
		}
		if len(out) > n || f.Path == "" {
			continue
		}
		top := f.Path
		if i := strings.IndexAny(top, ".["); i > 0 {
			top = top[:i]
		}
		out = append(out, plan.PropChange{Path: top, Old: prior[top], New: configured[top], Sensitive: slices.Contains(sensitive, top)})
	}
	return out
}
