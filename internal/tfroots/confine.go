package tfroots

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/tfmodule"
)

// errRemote stops walkCalls at the first call that is not a local path.
var errRemote = errors.New("a module call that is not a local path")

// walkCalls calls visit with every module call of the root at dir and of
// the local modules it runs, transitively, each where it is called from
// (callee: the local module's directory, "" for another source), until
// visit returns an error. A call's source may read variables and locals
// (the root's variables given by in): it is evaluated as loading the
// root evaluates it (tfconfig.EarlyCalls), for the module's place in the
// tree. A walk deeper than loading goes, or longer than installing
// does, stops with an error.
func walkCalls(dir string, in tfconfig.Inputs, visit func(c tfmodule.Call, callee string) error) error {
	calls := tfconfig.EarlyCalls(in)
	count := 0
	var walk func(d string, path []string) error
	walk = func(d string, path []string) error {
		found, _ := calls(d, path) // their errors are the loader's to report
		for _, c := range found {
			callee := ""
			if isLocal(c.Source) {
				callee = filepath.Join(d, filepath.FromSlash(c.Source))
			}
			if err := visit(c, callee); err != nil {
				return err
			}
			if callee == "" {
				continue
			}
			if count++; len(path) >= maxWalkDepth || count > maxWalkCalls {
				return fmt.Errorf("%s:%d:%d: module %q: the local modules called from the root go deeper, or are more, than Kyku follows (%d levels, %d calls)",
					c.SourceRange.Filename, c.SourceRange.Start.Line, c.SourceRange.Start.Column, c.Name, maxWalkDepth, maxWalkCalls)
			}
			if err := walk(callee, append(slices.Clone(path), c.Name)); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(dir, nil)
}

// Bounds of walkCalls: the loader's depth, the installer's count.
const (
	maxWalkDepth = 64
	maxWalkCalls = 10_000
)

// confineModules refuses a local module path, in the root at dir or in
// any local module it calls, that leaves the tree at top: OpenTofu
// follows "../" anywhere, but a pull request's call must not load
// configuration from the runner's or the bot's other directories.
// Remote sources are left to the installer (its own boundary).
func confineModules(top, dir string, in tfconfig.Inputs) error {
	return walkCalls(dir, in, func(c tfmodule.Call, callee string) error {
		if callee == "" {
			return nil
		}
		if rel, err := filepath.Rel(top, callee); err != nil || !filepath.IsLocal(rel) && rel != "." {
			return fmt.Errorf("%s:%d:%d: module %q: source %q leaves the repository: a module a root runs here is in the repository, or fetched by its source address",
				c.SourceRange.Filename, c.SourceRange.Start.Line, c.SourceRange.Start.Column, c.Name, c.Source)
		}
		return nil
	})
}

// NeedsInstall reports whether the root at dir, or a local module it
// runs, calls a module that is not a local path: one kyku init installs.
// Sources reading variables are evaluated with in, as loading does.
func NeedsInstall(dir string, in tfconfig.Inputs) bool {
	return errors.Is(walkCalls(dir, in, func(_ tfmodule.Call, callee string) error {
		if callee == "" {
			return errRemote
		}
		return nil
	}), errRemote)
}
