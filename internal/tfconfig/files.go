package tfconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"

	"github.com/kyku/action/internal/tfmodule"
)

// Sources finds where a module call whose source is not a local path
// (a registry's, git's) was installed. Local paths need none.
type Sources interface {
	// Dir is the directory of the module the call at path (the names of
	// the calls leading to it, the call's last) runs.
	Dir(path []string, call *Call) (string, hcl.Diagnostics)
}

// IsConfigDir reports whether dir holds a Terraform configuration: a
// .tf, .tf.json, .tofu or .tofu.json file.
func IsConfigDir(dir string) bool {
	info, err := os.Stat(dir)
	if err != nil || !info.IsDir() {
		return false
	}
	primary, override, _ := tfmodule.ConfigFiles(dir)
	return len(primary)+len(override) > 0
}

// Load reads the module tree whose root module is in dir: every module
// a call of a loaded module runs, local paths relative to the caller's
// directory, other sources through sources (nil: local paths only). A
// call's source and version may read variables (the root's from in) and
// locals, evaluated before anything else (early.go). Bad input is
// returned as a diag.Diagnostics with every problem found.
func Load(dir string, sources Sources, in Inputs) (*Module, error) {
	l := newLoader(sources, in)
	m := l.module(dir, nil, nil)
	if err := l.err(); err != nil {
		return nil, err
	}
	m.files = texts(l.parser.Files())
	for _, d := range l.diags {
		if d.Severity == hcl.DiagWarning {
			m.loadWarnings = append(m.loadWarnings, d)
		}
	}
	return m, nil
}

// texts keeps of each file only its text, which diagnostics quote
// (toDiag): the file's syntax tree is kept only as far as the module
// uses it. The tree's blocks and bodies, which the module's resources do
// not keep (each keeps its own body of arguments, resourceBody), were 890
// bytes of each of .ci/bench-reads' resource blocks: 45 MB at 50,000.
func texts(files map[string]*hcl.File) map[string]*hcl.File {
	out := make(map[string]*hcl.File, len(files))
	for name, f := range files {
		out[name] = &hcl.File{Bytes: f.Bytes}
	}
	return out
}

// loader reads modules and keeps every file's text for diagnostics.
type loader struct {
	parser  *hclparse.Parser
	sources Sources
	early   *early
	diags   hcl.Diagnostics
}

func newLoader(sources Sources, in Inputs) *loader {
	return &loader{parser: hclparse.NewParser(), sources: sources, early: newEarly(in)}
}

// maxDepth bounds module nesting: a module calling itself never ends.
const maxDepth = 64

// module reads the module in dir, called through path by call (nil for
// the root module), and the modules its calls run.
func (l *loader) module(dir string, path []string, call *Call) *Module {
	m := l.read(dir, path, call)
	l.diags = append(l.diags, l.early.consts(m, path)...)
	l.children(m, path)
	return m
}

// read reads the module in dir, called through path by call (nil for
// the root module): what is wrong with the directory itself is said
// where call names its source.
func (l *loader) read(dir string, path []string, call *Call) *Module {
	primary, override, diags := tfmodule.ConfigFiles(dir)
	if len(primary)+len(override) == 0 && !diags.HasErrors() {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "No configuration files",
			Detail:   fmt.Sprintf("Module directory %s does not contain any configuration files.", dir),
		})
	}
	for _, d := range diags {
		if d.Subject == nil && call != nil {
			d.Detail = moduleAddr(path) + ": " + d.Detail
			d.Subject = call.SourceRange.Ptr()
		}
	}
	l.diags = append(l.diags, diags...)
	m := newModule(dir)
	if diags.HasErrors() {
		return m
	}
	files := parseFiles(append(append([]string(nil), primary...), override...), l.parser.Files())
	for i, name := range append(append([]string(nil), primary...), override...) {
		if f := files[i].file; f != nil && f.Body != nil {
			l.diags = append(l.diags, checkCompat(f.Body, name, i >= len(primary))...)
		}
	}
	for i, name := range primary {
		if f := l.take(name, files[i]); f != nil {
			m.Files = append(m.Files, name)
			m.FunctionCalls = append(m.FunctionCalls, functionCalls(f)...)
			l.diags = append(l.diags, m.appendFile(decodeFile(f.Body, &l.diags))...)
		}
	}
	for i, name := range override {
		if f := l.take(name, files[len(primary)+i]); f != nil {
			m.Files = append(m.Files, name)
			m.FunctionCalls = append(m.FunctionCalls, functionCalls(f)...)
			l.diags = append(l.diags, m.mergeFile(decodeFile(f.Body, &l.diags))...)
		}
	}
	return m
}

// callsOf records call c of module m (at path) for early evaluation,
// and evaluates its source and version when they are not literal.
func (l *loader) callsOf(m *Module, path []string, c *Call) {
	l.early.called(m, path, c)
	if c.SourceExpr != nil || c.VersionExpr != nil {
		l.diags = append(l.diags, l.early.resolve(m, path, c)...)
	}
}

// take records file f, read and parsed (parse.go), and returns it, or
// nil when it could not be read or parsed (its diagnostics recorded).
func (l *loader) take(name string, f parsed) *hcl.File {
	l.diags = append(l.diags, f.diags...)
	if f.file != nil {
		l.parser.AddFile(name, f.file)
	}
	if f.file == nil || f.file.Body == nil {
		return nil
	}
	// Decoded though its syntax has errors, as OpenTofu decodes what its
	// parser recovered: every error of the configuration at once.
	return f.file
}

// children loads the modules m's calls run.
func (l *loader) children(m *Module, path []string) {
	for _, name := range sortedKeys(m.Calls) {
		c := m.Calls[name]
		l.callsOf(m, path, c)
		childPath := append(append([]string(nil), path...), name)
		if len(childPath) > maxDepth {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Module nesting too deep",
				Detail:   fmt.Sprintf("Module %s is %d modules deep; Kyku loads at most %d levels (a module calling itself never ends).", moduleAddr(childPath), len(childPath), maxDepth),
				Subject:  c.DeclRange.Ptr(),
			})
			continue
		}
		if c.Source == "" {
			continue // decoding said it is missing
		}
		dir, ok := l.childDir(m, c, childPath)
		if !ok {
			continue
		}
		m.Children[name] = l.module(dir, childPath, c)
	}
}

// childDir is the directory of the module c runs.
func (l *loader) childDir(m *Module, c *Call, path []string) (string, bool) {
	if isLocalSource(c.Source) {
		if c.Version != "" {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid registry module source address",
				Detail:   "Failed to parse module registry address: a module registry source address must have either three or four slash-separated components.\n\nKyku assumed that you intended a module registry source address because you also set the argument \"version\", which applies only to registry modules.",
				Subject:  c.SourceRange.Ptr(),
			})
			return "", false
		}
		return filepath.Join(m.Dir, filepath.FromSlash(c.Source)), true
	}
	if l.sources == nil {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Module not installed",
			Detail:   fmt.Sprintf("Module %s has the source %q, which is not a local path: Kyku runs modules from local paths (./ or ../) only, so far.", moduleAddr(path), c.Source),
			Subject:  c.SourceRange.Ptr(),
		})
		return "", false
	}
	dir, diags := l.sources.Dir(path, c)
	l.diags = append(l.diags, diags...)
	return dir, !diags.HasErrors()
}

// isLocalSource: a module source starting with ./ or ../ is a directory
// relative to the caller's.
func isLocalSource(s string) bool {
	return strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") ||
		strings.HasPrefix(s, `.\`) || strings.HasPrefix(s, `..\`)
}

// moduleAddr is the module at path as OpenTofu writes it.
func moduleAddr(path []string) string { return "module." + strings.Join(path, ".module.") }

// err is the diagnostics so far as Kyku's, with their source lines; nil
// without errors.
func (l *loader) err() error {
	if !l.diags.HasErrors() {
		return nil
	}
	return toDiag(onlyIncompatible(l.diags), l.parser.Files())
}
