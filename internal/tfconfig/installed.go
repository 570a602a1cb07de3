package tfconfig

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"

	"github.com/kyku/action/internal/tfmodule"
)

// Installed finds the modules `kyku init` installed for the root module
// in root (.terraform/modules, as its modules.json records them), as
// OpenTofu finds them for plan and validate: nothing is fetched, and a
// call not installed, whose source changed or whose version constraint
// no longer allows the installed version asks for an init, in
// OpenTofu's words (tfmodule.Check). Check runs once, when the first
// call that is not a local path is met: a configuration of local paths
// only needs no init, as in Kyku before modules. A call's source and
// version are evaluated with in, as Load evaluates them (EarlyCalls).
func Installed(ctx context.Context, root string, in Inputs) Sources {
	return &installed{root: root, check: func() ([]tfmodule.Module, hcl.Diagnostics) {
		return tfmodule.Check(ctx, root, ModuleBoundary(root), EarlyCalls(in))
	}}
}

// ModuleBoundary is the directory local module paths of the root
// module's own package must stay in: the repository root is in, as for
// the file functions. `kyku init` installs with the same.
func ModuleBoundary(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		return root
	}
	return repository(abs)
}

// installed is the Sources of Installed.
type installed struct {
	root    string // as given
	check   func() ([]tfmodule.Module, hcl.Diagnostics)
	checked bool
	dirs    map[string]string // module directory by key
	diags   hcl.Diagnostics   // Check's errors
	general bool              // Check's errors at no call were reported
}

func (s *installed) Dir(path []string, c *Call) (string, hcl.Diagnostics) {
	if !s.checked {
		s.checked = true
		mods, diags := s.check()
		s.dirs = make(map[string]string, len(mods))
		real, err := filepath.EvalSymlinks(s.root)
		for _, m := range mods {
			// Under the root as given, as OpenTofu names a module's
			// directory (path.module, file names in diagnostics).
			dir := m.Dir
			if rel, rerr := filepath.Rel(real, m.Dir); err == nil && rerr == nil && filepath.IsLocal(rel) {
				dir = filepath.Join(s.root, rel)
			}
			s.dirs[m.Key] = dir
		}
		for _, d := range diags {
			if d.Severity == hcl.DiagError {
				s.diags = append(s.diags, d)
			}
		}
	}
	var out hcl.Diagnostics
	if !s.general {
		s.general = true
		for _, d := range s.diags {
			if d.Subject == nil {
				out = append(out, d)
			}
		}
	}
	for _, d := range s.diags {
		if about(d, c) {
			// Check names the file by its real path; the loader by the
			// path it read, which its diagnostics show the line of.
			at := *d
			subject := *d.Subject
			subject.Filename = c.DeclRange.Filename
			at.Subject = &subject
			out = append(out, &at)
		}
	}
	if out.HasErrors() {
		return "", out
	}
	dir, ok := s.dirs[tfmodule.Key(path)]
	if !ok {
		return "", hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Module not installed",
			Detail:   fmt.Sprintf("This module (%s, source %q) is not yet installed. Run \"kyku init\" to install all modules required by this configuration.", moduleAddr(path), c.Source),
			Subject:  c.DeclRange.Ptr(),
		}}
	}
	return dir, nil
}

// about reports whether d, one of Check's, is at the call c: in its file,
// on the line of its block or of its source argument.
func about(d *hcl.Diagnostic, c *Call) bool {
	if d.Subject == nil || !sameFile(d.Subject.Filename, c.DeclRange.Filename) {
		return false
	}
	line := d.Subject.Start.Line
	return line == c.DeclRange.Start.Line || line == c.SourceRange.Start.Line
}

// sameFile reports whether a and b name one file, links resolved.
func sameFile(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

// DiagnosticsError is the errors of diags (tfmodule's: `kyku init`'s) as
// Kyku's diagnostics, each with its source line; nil without errors.
func DiagnosticsError(diags hcl.Diagnostics) error {
	if !diags.HasErrors() {
		return nil
	}
	files := map[string]*hcl.File{}
	for _, d := range diags {
		if d.Subject == nil || files[d.Subject.Filename] != nil {
			continue
		}
		if b, err := os.ReadFile(d.Subject.Filename); err == nil {
			files[d.Subject.Filename] = &hcl.File{Bytes: b}
		}
	}
	return toDiag(diags, files)
}
