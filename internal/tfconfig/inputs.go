package tfconfig

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/kyku/action/internal/lang/marks"
	"github.com/kyku/action/internal/value"
)

// Inputs are what a configuration is expanded with besides its files.
type Inputs struct {
	// Vars are --var name=value and --var-file FILE, in the order given:
	// a later one wins. They win over *.auto.tfvars(.json), which win
	// over terraform.tfvars(.json), which wins over TF_VAR_name.
	Vars []VarArg
	// Getenv reads TF_VAR_name (nil: none).
	Getenv func(string) string
	// Workspace is terraform.workspace: Kyku's environment ("" is
	// "default").
	Workspace string
	// Now is the clock timestamp() reads while applying (nil: it stays
	// unknown).
	Now func() time.Time
	// PlanTimestamp is what plantimestamp() returns: the time the plan
	// was made (a saved plan's, when applying it), known at plan as
	// OpenTofu knows it. Zero: unknown.
	PlanTimestamp time.Time
	// Known reads the resources known before planning (state, data
	// sources read): what count and for_each may read. nil: none.
	Known value.Lookup
	// NamesFrom, when set, is the directory the files are named from
	// where an argument says where it is written (Expr's description,
	// which hashes and plan files hold): a front door that loads a
	// commit's files from a directory of its own names them by their
	// repository paths, the same in every run. "": as loaded.
	NamesFrom string
	// ProviderFunctions lists the functions of a provider the
	// configuration calls provider::NAME::FUNCTION. nil: such calls are
	// unknown (kyku init, which installs the providers).
	ProviderFunctions ProviderFunctions
	// Validating reads the configuration as tofu validate does: every
	// root variable unknown, whatever values are given (none is read), so
	// that the configuration is checked for every value it may be given.
	Validating bool
}

// VarArg is one --var (Name and Value) or --var-file (File).
type VarArg struct {
	Name, Value string
	File        string
}

func (in Inputs) workspace() string {
	if in.Workspace == "" {
		return "default"
	}
	return in.Workspace
}

func (in Inputs) getenv(name string) string {
	if in.Getenv == nil {
		return ""
	}
	return in.Getenv(name)
}

// rawValue is a root variable's value before conversion: where it came
// from (Source, as config.Variable says it) and the range of a file's.
type rawValue struct {
	val    cty.Value
	source string
	rng    *hcl.Range
}

// rootValues gathers the root module's variables' values from every
// source, OpenTofu's order: TF_VAR_name, terraform.tfvars(.json),
// *.auto.tfvars(.json) by name, then --var and --var-file as given.
func (ev *evaluator) rootValues(m *Module, files map[string]*hcl.File) map[string]rawValue {
	out := map[string]rawValue{}
	for name, v := range m.Variables {
		if s := ev.in.getenv("TF_VAR_" + name); s != "" {
			val, ok := ev.parseText(v, name, s)
			if ok {
				out[name] = rawValue{val: val, source: "TF_VAR_" + name}
			}
		}
	}
	var auto []string
	if entries, err := os.ReadDir(m.Dir); err == nil {
		for _, e := range entries {
			n := e.Name()
			if !e.IsDir() && (strings.HasSuffix(n, ".auto.tfvars") || strings.HasSuffix(n, ".auto.tfvars.json")) {
				auto = append(auto, n)
			}
		}
	}
	for _, name := range append([]string{"terraform.tfvars", "terraform.tfvars.json"}, auto...) {
		path := filepath.Join(m.Dir, name)
		if _, err := os.Stat(path); err == nil {
			ev.tfvarsFile(m, path, false, files, out)
		}
	}
	for _, a := range ev.in.Vars {
		if a.File != "" {
			ev.tfvarsFile(m, a.File, true, files, out)
			continue
		}
		v := m.Variables[a.Name]
		if v == nil {
			ev.diags = append(ev.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Value for undeclared variable",
				Detail:   fmt.Sprintf("A variable named %q was assigned on the command line, but the root module does not declare a variable of that name. To use this value, add a \"variable\" block to the configuration.", a.Name),
			})
			continue
		}
		if val, ok := ev.parseText(v, a.Name, a.Value); ok {
			out[a.Name] = rawValue{val: val, source: "--var"}
		}
	}
	ev.undeclaredWarnings()
	return out
}

// parseText reads a value given as text (--var, TF_VAR_name): the text
// itself for a primitive type, else an HCL expression.
func (ev *evaluator) parseText(v *Variable, name, s string) (cty.Value, bool) {
	if v.Literal {
		return cty.StringVal(s), true
	}
	expr, diags := hclsyntax.ParseExpression([]byte(s), fmt.Sprintf("<value for var.%s>", name), hcl.Pos{Line: 1, Column: 1})
	if !diags.HasErrors() {
		var ds hcl.Diagnostics
		val, ds := expr.Value(nil)
		diags = append(diags, ds...)
		if !diags.HasErrors() {
			return val, true
		}
	}
	for _, d := range diags {
		d.Subject = nil // the text is not a file; its value may be a secret
		d.Detail = fmt.Sprintf("The value given for var.%s is not a valid expression: %s", name, strings.TrimSuffix(d.Detail, "."))
	}
	ev.diags = append(ev.diags, diags...)
	return cty.NilVal, false
}

// tfvarsFile reads a variable definitions file into out. given says it
// was named with --var-file (an error when missing; its undeclared names
// are ignored, as a file's are).
func (ev *evaluator) tfvarsFile(m *Module, path string, given bool, files map[string]*hcl.File, out map[string]rawValue) {
	data, err := os.ReadFile(path)
	if err != nil {
		ev.diags = append(ev.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Failed to read variables file",
			Detail:   fmt.Sprintf("Given variables file %s does not exist.", path),
		})
		ev.varsUnread = true
		return
	}
	p := hclparse.NewParser()
	var f *hcl.File
	var diags hcl.Diagnostics
	if strings.HasSuffix(path, ".json") {
		f, diags = p.ParseJSON(data, path)
	} else {
		f, diags = p.ParseHCL(data, path)
	}
	if f != nil {
		files[path] = f
	}
	ev.diags = append(ev.diags, diags...)
	if diags.HasErrors() {
		ev.varsUnread = true
		return
	}
	attrs, diags := f.Body.JustAttributes()
	ev.diags = append(ev.diags, diags...)
	source := "--var-file"
	if !given {
		source = filepath.Base(path)
	}
	for _, a := range sortedAttrs(attrs) {
		name := a.Name
		if m.Variables[name] == nil {
			// A tfvars file is often shared: OpenTofu warns, of the
			// first two (undeclaredWarnings).
			file := path
			if !given {
				file = filepath.Base(path)
			}
			ev.undeclared = append(ev.undeclared, undeclaredValue{a, file})
			continue
		}
		val, ds := a.Expr.Value(nil)
		if ds.HasErrors() {
			for _, d := range ds {
				if d.Summary == "Variables not allowed" {
					d.Detail = "Variables may not be used here."
				}
			}
			ev.diags = append(ev.diags, ds...)
			continue
		}
		rng := a.Expr.Range()
		out[name] = rawValue{val: val, source: source, rng: &rng}
	}
}

// undeclaredWarnings are OpenTofu's warnings of the values variables
// files gave to variables the root module does not declare: one for each
// of the first two, then one counting the others.
func (ev *evaluator) undeclaredWarnings() {
	for i, a := range ev.undeclared {
		if i == 2 {
			ev.diags = append(ev.diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "Values for undeclared variables",
				Detail:   fmt.Sprintf("In addition to the other similar warnings shown, %d other variable(s) defined without being declared.", len(ev.undeclared)-2),
			})
			break
		}
		ev.diags = append(ev.diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "Value for undeclared variable",
			Detail:   fmt.Sprintf("The root module does not declare a variable named %q but a value was found in file %q. If you meant to use this value, add a \"variable\" block to the configuration.", a.Name, a.file),
			Subject:  a.NameRange.Ptr(),
		})
	}
}

// undeclaredValue is a variables file's (file, as named) value for a
// variable the root module does not declare.
type undeclaredValue struct {
	*hcl.Attribute
	file string
}

// sortedAttrs are attrs in the order of their files' lines.
func sortedAttrs(attrs hcl.Attributes) []*hcl.Attribute {
	out := slices.Collect(maps.Values(attrs))
	slices.SortFunc(out, func(a, b *hcl.Attribute) int { return a.NameRange.Start.Byte - b.NameRange.Start.Byte })
	return out
}

// finishVariable converts a variable's given value (cty.NilVal: none) to
// its type as OpenTofu does: the type's defaults applied, null allowed
// only when nullable (a non-nullable variable's null is its default),
// marked sensitive when declared so. from says where the value was
// given, for messages.
func finishVariable(v *Variable, addr string, given cty.Value, from string, subject *hcl.Range) (cty.Value, hcl.Diagnostics) {
	if subject == nil {
		subject = v.DeclRange.Ptr()
	}
	if given == cty.NilVal {
		if v.Required() {
			return failed(v.Type), hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Required variable not set",
				Detail:   fmt.Sprintf("The variable %q is required, but is not set.", v.Name),
				Subject:  v.DeclRange.Ptr(),
			}}
		}
		given = v.Default
	}
	if v.Defaults != nil && !given.IsNull() {
		given = v.Defaults.Apply(given)
	}
	val, err := convert.Convert(given, v.Type)
	if err != nil {
		// Said at the declaration, as OpenTofu says it; where the value
		// was given is in the detail.
		detail := fmt.Sprintf("The given value is not suitable for %s declared at %s: %s.", addr, v.DeclRange, convertError(err))
		if *subject != v.DeclRange {
			detail += fmt.Sprintf(" Invalid value defined at %s.", *subject)
		}
		if from != "" {
			detail = fmt.Sprintf("Unsuitable value for %s %s: %s.", addr, from, convertError(err))
		}
		if v.Sensitive {
			detail = fmt.Sprintf("The given value is not suitable for %s, which is sensitive: %s. Invalid value defined at %s.", addr, convertError(err), *subject)
		}
		return failed(v.Type), hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid value for input variable", Detail: detail, Subject: v.DeclRange.Ptr()}}
	}
	if val.IsNull() && !v.Nullable {
		if v.Default == cty.NilVal || v.Default.IsNull() {
			return failed(v.Type), hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Required variable not set",
				Detail:   fmt.Sprintf("The given value is not suitable for %s defined at %s: required variable may not be set to null.", addr, v.DeclRange),
				Subject:  subject,
			}}
		}
		val = v.Default
	}
	if v.Sensitive {
		val = val.Mark(marks.Sensitive)
	}
	return val, nil
}

// fromText says, for a root variable's message, where a value given
// outside the files came from ("" for a file's).
func fromText(name, source string) string {
	switch {
	case source == "--var":
		return fmt.Sprintf("set using --var=\"%s=...\"", name)
	case strings.HasPrefix(source, "TF_VAR_"):
		return fmt.Sprintf("set using the TF_VAR_%s environment variable", name)
	}
	return ""
}
