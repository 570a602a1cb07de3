package tfroots

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/kyku/action/internal/tfmodule"
)

// errRemote stops walkCalls at the first call that is not a local path.
var errRemote = errors.New("a module call that is not a local path")

// walkCalls calls visit with every module call of the root at dir and of
// the local modules it runs, transitively (callee: the local module's
// directory, "" for another source), until visit returns an error.
func walkCalls(dir string, visit func(c tfmodule.Call, callee string) error) error {
	seen := map[string]bool{dir: true}
	queue := []string{dir}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		calls, _ := tfmodule.ScanCalls(d) // their errors are the loader's to report
		for _, c := range calls {
			callee := ""
			if isLocal(c.Source) {
				callee = filepath.Join(d, filepath.FromSlash(c.Source))
			}
			if err := visit(c, callee); err != nil {
				return err
			}
			if callee != "" && !seen[callee] {
				seen[callee] = true
				queue = append(queue, callee)
			}
		}
	}
	return nil
}

// confineModules refuses a local module path, in the root at dir or in
// any local module it calls, that leaves the tree at top: OpenTofu
// follows "../" anywhere, but a pull request's call must not load
// configuration from the runner's or the bot's other directories.
// Remote sources are left to the installer (its own boundary).
func confineModules(top, dir string) error {
	return walkCalls(dir, func(c tfmodule.Call, callee string) error {
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
func NeedsInstall(dir string) bool {
	return errors.Is(walkCalls(dir, func(_ tfmodule.Call, callee string) error {
		if callee == "" {
			return errRemote
		}
		return nil
	}), errRemote)
}
