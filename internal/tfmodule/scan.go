package tfmodule

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Call is one module block: what installing needs of it.
type Call struct {
	// Name is the block's label.
	Name string
	// Source is the source argument's value as written.
	Source string
	// Version is the version argument's value ("" without one);
	// HasVersion says whether the argument is set.
	Version    string
	HasVersion bool
	// DeclRange is the block's header; SourceRange and VersionRange the
	// arguments' values.
	DeclRange, SourceRange, VersionRange hcl.Range
	// Dynamic says that ScanCalls found a source or version that reads
	// variables or locals, or calls functions, which it leaves unread
	// (Source and Version ""): tfconfig.EarlyCalls evaluates them.
	Dynamic bool
}

// CallsFunc returns the module calls of the module in dir, which the
// calls path lead to (none: the root module's): what its calls' source
// and version read of the module's variables depends on where it is
// called from.
type CallsFunc func(dir string, path []string) ([]Call, hcl.Diagnostics)

// ScanCalls is a CallsFunc that reads only the module blocks of dir's
// configuration files (.tf, .tf.json, .tofu, .tofu.json; a .tofu file
// hides the .tf file of the same name; override files last), whose
// source and version must be literal strings. The HCL loader's own
// CallsFunc (tfconfig.EarlyCalls) replaces it, with variables and locals
// evaluated before anything is installed, as OpenTofu does.
func ScanCalls(dir string) ([]Call, hcl.Diagnostics) {
	primary, override, diags := configFiles(dir)
	if diags.HasErrors() {
		return nil, diags
	}
	p := hclparse.NewParser()
	var calls []Call
	byName := map[string]int{}
	for _, f := range primary {
		fc, ds := fileCalls(p, f, false)
		diags = append(diags, ds...)
		for _, c := range fc {
			if i, dup := byName[c.Name]; dup {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Duplicate module call",
					Detail:   fmt.Sprintf("A module call named %q was already defined at %s. Module calls must have unique names within a module.", c.Name, calls[i].DeclRange),
					Subject:  c.DeclRange.Ptr(),
				})
				continue
			}
			byName[c.Name] = len(calls)
			calls = append(calls, c)
		}
	}
	for _, f := range override {
		fc, ds := fileCalls(p, f, true)
		diags = append(diags, ds...)
		for _, o := range fc {
			i, ok := byName[o.Name]
			if !ok {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Missing module call to override",
					Detail:   fmt.Sprintf("There is no module call named %q. An override file can only override a module call that was already defined in a primary configuration file.", o.Name),
					Subject:  o.DeclRange.Ptr(),
				})
				continue
			}
			if o.Source != "" {
				calls[i].Source, calls[i].SourceRange = o.Source, o.SourceRange
			}
			if o.HasVersion {
				calls[i].Version, calls[i].HasVersion, calls[i].VersionRange = o.Version, true, o.VersionRange
			}
		}
	}
	sort.Slice(calls, func(i, j int) bool { return calls[i].Name < calls[j].Name })
	sort.SliceStable(diags, func(i, j int) bool { return before(diags[i].Subject, diags[j].Subject) })
	return calls, diags
}

// before orders diagnostics by file and position; those without a
// subject first.
func before(a, b *hcl.Range) bool {
	switch {
	case a == nil || b == nil:
		return a == nil && b != nil
	case a.Filename != b.Filename:
		return a.Filename < b.Filename
	}
	return a.Start.Byte < b.Start.Byte
}

// fileCalls reads the module blocks of one file.
func fileCalls(p *hclparse.Parser, file string, override bool) ([]Call, hcl.Diagnostics) {
	var f *hcl.File
	var diags hcl.Diagnostics
	if strings.HasSuffix(file, ".json") {
		f, diags = p.ParseJSONFile(file)
	} else {
		f, diags = p.ParseHCLFile(file)
	}
	if f == nil || diags.HasErrors() {
		return nil, diags
	}
	content, _, ds := f.Body.PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "module", LabelNames: []string{"name"}}}})
	diags = append(diags, ds...)
	attrs := &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "source", Required: !override}, {Name: "version"}}}
	var calls []Call
	for _, b := range content.Blocks {
		c := Call{Name: b.Labels[0], DeclRange: b.DefRange}
		if !hclsyntax.ValidIdentifier(c.Name) {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid module instance name",
				Detail:   "A name must start with a letter or underscore and may contain only letters, digits, underscores, and dashes.",
				Subject:  b.LabelRanges[0].Ptr(),
			})
			continue
		}
		bc, _, ds := b.Body.PartialContent(attrs)
		diags = append(diags, ds...)
		if ds.HasErrors() {
			continue
		}
		ok := true
		if a := bc.Attributes["source"]; a != nil {
			c.SourceRange = a.Expr.Range()
			if c.Dynamic = !Constant(a.Expr); !c.Dynamic {
				c.Source, ok = literal(a, &diags)
			}
		}
		if a := bc.Attributes["version"]; a != nil {
			c.VersionRange = a.Expr.Range()
			c.HasVersion = true
			if !Constant(a.Expr) {
				c.Dynamic = true
			} else {
				v, vok := literal(a, &diags)
				c.Version, ok = v, ok && vok
			}
		}
		if c.Dynamic {
			c.Source, c.Version = "", ""
		}
		if ok {
			calls = append(calls, c)
		}
	}
	return calls, diags
}

// Constant reports whether expr reads nothing and calls no function: a
// module call's source or version that is not is evaluated before
// anything is installed (tfconfig.EarlyCalls), not read here.
func Constant(expr hcl.Expression) bool {
	if len(expr.Variables()) > 0 {
		return false
	}
	_, diags := expr.Value(nil)
	return !diags.HasErrors()
}

// literal is a's value, which must be a string known without evaluation.
func literal(a *hcl.Attribute, diags *hcl.Diagnostics) (string, bool) {
	v, ds := a.Expr.Value(nil)
	if ds.HasErrors() {
		*diags = append(*diags, ds...)
		return "", false
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil || s.IsNull() || !s.IsKnown() {
		*diags = append(*diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid value for " + a.Name,
			Detail:   fmt.Sprintf("The %s of a module call must be a string.", a.Name),
			Subject:  a.Expr.Range().Ptr(),
		})
		return "", false
	}
	return s.AsString(), true
}

// ConfigFiles lists dir's configuration files as OpenTofu selects them:
// .tf, .tf.json, .tofu and .tofu.json files, a .tofu file hiding the .tf
// file of the same name, the override files (override.tf,
// *_override.tf, …) apart, each list in name order.
func ConfigFiles(dir string) (primary, override []string, diags hcl.Diagnostics) {
	return configFiles(dir)
}

// configFiles lists dir's configuration files as OpenTofu selects them.
func configFiles(dir string) (primary, override []string, diags hcl.Diagnostics) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Failed to read module directory",
			Detail:   fmt.Sprintf("Module directory %s does not exist or cannot be read.", dir),
		}}
	}
	for _, e := range entries {
		name := e.Name()
		ext := configExt(name)
		if e.IsDir() || ext == "" || ignoredFile(name) {
			continue
		}
		base := strings.TrimSuffix(name, ext)
		if base == "override" || strings.HasSuffix(base, "_override") {
			override = append(override, filepath.Join(dir, name))
		} else {
			primary = append(primary, filepath.Join(dir, name))
		}
	}
	return withoutTfHiddenByTofu(primary), withoutTfHiddenByTofu(override), nil
}

// configExt is name's configuration extension, or "" (test files are
// not configuration).
func configExt(name string) string {
	for _, ext := range []string{".tf", ".tf.json", ".tofu", ".tofu.json"} {
		if strings.HasSuffix(name, ext) {
			return ext
		}
	}
	return ""
}

// ignoredFile: hidden files and editors' backups.
func ignoredFile(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasSuffix(name, "~") ||
		strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#")
}

// withoutTfHiddenByTofu drops x.tf (x.tf.json) where x.tofu (x.tofu.json)
// is listed too.
func withoutTfHiddenByTofu(paths []string) []string {
	var out []string
	for _, p := range paths {
		var tofu string
		switch {
		case strings.HasSuffix(p, ".tf"):
			tofu = strings.TrimSuffix(p, ".tf") + ".tofu"
		case strings.HasSuffix(p, ".tf.json"):
			tofu = strings.TrimSuffix(p, ".tf.json") + ".tofu.json"
		}
		if tofu == "" || !slices.Contains(paths, tofu) {
			out = append(out, p)
		}
	}
	return out
}
