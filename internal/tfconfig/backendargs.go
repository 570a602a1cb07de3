package tfconfig

import (
	"fmt"
	"maps"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
)

// BackendArgs is where a root keeps its state: its backend block's type
// and arguments, overridden by -backend-config files and KEY=VALUE pairs
// in the order given, as OpenTofu's init merges them.
type BackendArgs struct {
	// Type is the block's label; "" when the root has no backend block
	// (OpenTofu's local backend, terraform.tfstate).
	Type string
	// Args are the arguments as canonical values (string, bool, float64,
	// map[string]any); a KEY=VALUE pair's value is a string.
	Args map[string]any
	// Pos is the block's place.
	Pos diag.Pos
}

// RootBackend evaluates m's backend block, variables and locals known
// from in as OpenTofu evaluates it early, and merges overrides (each
// -backend-config: a FILE of arguments, or KEY=VALUE) over it. Bad input
// is a diag.Diagnostics at file:line:col.
func RootBackend(m *Module, in Inputs, overrides []string) (*BackendArgs, error) {
	out := &BackendArgs{Args: map[string]any{}}
	if m.Backend == nil {
		if len(overrides) > 0 {
			return nil, fmt.Errorf("-backend-config %s: the configuration has no backend block to configure (OpenTofu's local backend takes none)", overrides[0])
		}
		return out, nil
	}
	ev := &evaluator{in: in, files: maps.Clone(m.files)}
	ev.fns = ev.newFunctions()
	if ev.files == nil {
		ev.files = map[string]*hcl.File{}
	}
	root := newModInst(ev, m, "", nil, nil, instKey{})
	ev.root = root
	ev.rootVariables(root, &config.Config{})
	out.Type, out.Pos = m.Backend.Type, pos(m.Backend.DeclRange)
	ev.backendArgs(root, m.Backend.Body, out.Args)
	for _, o := range overrides {
		name, val, pair := strings.Cut(o, "=")
		if pair {
			if name = strings.TrimSpace(name); name == "" {
				return nil, fmt.Errorf("-backend-config %s: no argument name before '='", o)
			}
			out.Args[name] = val
			continue
		}
		p := hclparse.NewParser()
		var f *hcl.File
		var diags hcl.Diagnostics
		if strings.HasSuffix(o, ".json") {
			f, diags = p.ParseJSONFile(o)
		} else {
			f, diags = p.ParseHCLFile(o)
		}
		maps.Copy(ev.files, p.Files())
		ev.diags = append(ev.diags, diags...)
		if f != nil && !diags.HasErrors() {
			ev.backendArgs(nil, f.Body, out.Args)
		}
	}
	if err := toDiag(ev.diags, ev.files).Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// backendArgs evaluates body's arguments into args: in root's scope, or
// (a -backend-config file) with no variables at all. A value known only
// after apply is refused: the state is read before anything is.
func (ev *evaluator) backendArgs(root *modInst, body hcl.Body, args map[string]any) {
	attrs, diags := body.JustAttributes()
	ev.diags = append(ev.diags, diags...)
	for _, name := range sortedKeys(attrs) {
		a := attrs[name]
		var v any
		if root != nil {
			val, ds := scope{mi: root}.eval(a.Expr, nil, memo{})
			ev.diags = append(ev.diags, ds...)
			if ds.HasErrors() {
				continue
			}
			var unknown bool
			if v, unknown = canonical(val); unknown {
				ev.diags = append(ev.diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid backend configuration",
					Detail:   fmt.Sprintf("The value of %q is known only after apply: a backend's arguments may read variables and locals, not resources or data sources.", name),
					Subject:  a.Expr.Range().Ptr(),
				})
				continue
			}
		} else {
			val, ds := a.Expr.Value(nil)
			ev.diags = append(ev.diags, ds...)
			if ds.HasErrors() {
				continue
			}
			v, _ = canonical(val)
		}
		args[name] = v
	}
}
