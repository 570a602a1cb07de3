package tfconfig_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/golden"
	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/value"
)

// The constructs: each directory of testdata/constructs is a
// configuration, expanded, and rendered (expanded.golden beside it):
// every resource instance with its arguments, those that read other
// resources evaluated against a stand-in lookup, and the rest of what
// Kyku's model holds. An args file in it holds the --var and --var-file
// arguments (one a line: name=value, or @file), a env file TF_VAR_
// values (NAME=value a line).
func TestConstructs(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "constructs", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no constructs: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			in := inputsOf(t, dir)
			m, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			cfg, err := tfconfig.Expand(m, in)
			if err != nil {
				t.Fatalf("expand: %v", err)
			}
			golden.Check(t, filepath.Join("constructs", filepath.Base(dir), "expanded.golden"), render(cfg, dir))
		})
	}
}

// TestErrors: each directory of testdata/errors is a configuration whose
// diagnostics (every one, at once) are errors.golden beside it.
func TestErrors(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "errors", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no error cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			in := inputsOf(t, dir)
			m, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
			if err == nil {
				_, err = tfconfig.Expand(m, in)
			}
			if err == nil {
				t.Fatal("no error")
			}
			text := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			if strings.Contains(text, "*hcl.") || strings.Contains(text, "cty.") || strings.Contains(text, "%!") {
				t.Errorf("a message names a Go type or a bad format:\n%s", text)
			}
			golden.Check(t, filepath.Join("errors", filepath.Base(dir), "errors.golden"), text+"\n")
		})
	}
}

func inputsOf(t *testing.T, dir string) tfconfig.Inputs {
	t.Helper()
	in := tfconfig.Inputs{Workspace: "staging"}
	if data, err := os.ReadFile(filepath.Join(dir, "args")); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if f, ok := strings.CutPrefix(line, "@"); ok {
				in.Vars = append(in.Vars, tfconfig.VarArg{File: filepath.Join(dir, f)})
				continue
			}
			name, val, _ := strings.Cut(line, "=")
			in.Vars = append(in.Vars, tfconfig.VarArg{Name: name, Value: val})
		}
	}
	env := map[string]string{}
	if data, err := os.ReadFile(filepath.Join(dir, "env")); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			name, val, _ := strings.Cut(line, "=")
			env[name] = val
		}
	}
	in.Getenv = func(k string) string { return env[k] }
	return in
}

// standIn is the lookup the rendering evaluates expressions with: every
// instance has an id, an arn, a name and a list of zones derived from
// its address.
func standIn(r value.Ref) (any, bool) {
	obj := map[string]any{"id": "id-of-" + r.Resource, "arn": "arn:" + r.Resource, "name": "name-of-" + r.Resource,
		"zones": []any{"z1", "z2"}, "tags": map[string]any{"env": "e"}}
	if r.Attr == value.AllAttrs {
		return obj, true
	}
	v, ok := obj[r.Attr]
	return v, ok
}

// render writes what the configuration holds, one section per kind.
func render(cfg *config.Config, dir string) string {
	var b strings.Builder
	js := func(v any) string {
		data, err := json.Marshal(v)
		if err != nil {
			return err.Error()
		}
		return string(data)
	}
	for _, r := range cfg.Resources {
		what := "resource"
		if r.Data {
			what = "data"
		}
		fmt.Fprintf(&b, "%s %s (type %s, provider %s) at %s\n", what, r.Name, r.Type, r.Provider, rel(r.Pos.String(), dir))
		for _, name := range slices.Sorted(maps.Keys(r.Properties)) {
			v := r.Properties[name]
			mark := ""
			if e, ok := v.(value.Expr); ok {
				var refs []string
				for _, ref := range e.Refs() {
					refs = append(refs, ref.Resource+"."+ref.Attr)
				}
				mark = " (reads " + strings.Join(refs, ", ") + ")"
			}
			got, unknown, err := value.ResolveChecked(v, standIn)
			switch {
			case err != nil:
				fmt.Fprintf(&b, "  %s = error: %v\n", name, err)
			case unknown:
				fmt.Fprintf(&b, "  %s = %s (unknown parts)%s\n", name, js(got), mark)
			default:
				fmt.Fprintf(&b, "  %s = %s%s\n", name, js(got), mark)
			}
		}
		for _, l := range []struct {
			name string
			v    []string
		}{{"sensitive", r.Sensitive}, {"depends_on", r.DependsOn}, {"ignore_changes", r.IgnoreChanges}} {
			if len(l.v) > 0 {
				fmt.Fprintf(&b, "  %s: %s\n", l.name, strings.Join(l.v, ", "))
			}
		}
		if r.Protect {
			b.WriteString("  prevent_destroy\n")
		}
		if r.CreateBeforeDestroy {
			b.WriteString("  create_before_destroy\n")
		}
	}
	for _, o := range cfg.Outputs {
		got, unknown, err := value.ResolveChecked(o.Value, standIn)
		fmt.Fprintf(&b, "output %s = %s", o.Name, js(got))
		if unknown || err != nil {
			fmt.Fprintf(&b, " (unknown %v, error %v)", unknown, err)
		}
		if o.Sensitive {
			b.WriteString(" (sensitive)")
		}
		b.WriteString("\n")
	}
	for _, v := range cfg.Variables {
		val := js(v.Value)
		if v.Sensitive {
			val = "(sensitive)"
		}
		fmt.Fprintf(&b, "variable %s = %s from %s\n", v.Name, val, v.Source)
	}
	for _, p := range cfg.Providers {
		fmt.Fprintf(&b, "provider %s source %s version %q config %s sensitive %v\n", p.Name, p.Source, p.Version, js(p.Config), p.Sensitive)
	}
	if cfg.Backend != nil {
		fmt.Fprintf(&b, "backend %s\n", js(cfg.Backend))
	}
	for _, m := range cfg.Moved {
		fmt.Fprintf(&b, "moved %s -> %s\n", m.From, m.To)
	}
	for _, im := range cfg.Imports {
		fmt.Fprintf(&b, "import %s id %s\n", im.To, im.ID)
	}
	for _, f := range cfg.Forget {
		fmt.Fprintf(&b, "forget %s\n", f)
	}
	for _, cr := range cfg.CountReads {
		fmt.Fprintf(&b, "%s of %s reads %s\n", cr.Arg, cr.By, strings.Join(cr.Reads, ", "))
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(&b, "warning %s\n", rel(w, dir))
	}
	if len(cfg.Secrets) > 0 {
		fmt.Fprintf(&b, "secrets: %d\n", len(cfg.Secrets))
	}
	// path.cwd is where the checkout is: the golden names it <dir>.
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err.Error()
	}
	return strings.ReplaceAll(b.String(), abs, "<dir>")
}

func rel(pos, dir string) string { return strings.TrimPrefix(pos, dir+string(filepath.Separator)) }
