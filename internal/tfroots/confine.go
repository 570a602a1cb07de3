package tfroots

import (
	"fmt"
	"path/filepath"

	"github.com/kyku/action/internal/tfmodule"
)

// confineModules refuses a local module path, in the root at dir or in
// any local module it calls, that leaves the tree at top: OpenTofu
// follows "../" anywhere, but a pull request's call must not load
// configuration from the runner's or the bot's other directories.
// Remote sources are left to the installer (its own boundary).
func confineModules(top, dir string) error {
	seen := map[string]bool{dir: true}
	queue := []string{dir}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		calls, _ := tfmodule.ScanCalls(d) // their errors are the loader's to report
		for _, c := range calls {
			if !isLocal(c.Source) {
				continue
			}
			callee := filepath.Join(d, filepath.FromSlash(c.Source))
			rel, err := filepath.Rel(top, callee)
			if err != nil || !filepath.IsLocal(rel) && rel != "." {
				return fmt.Errorf("%s:%d:%d: module %q: source %q leaves the repository: a module a root runs here is in the repository, or fetched by its source address",
					c.SourceRange.Filename, c.SourceRange.Start.Line, c.SourceRange.Start.Column, c.Name, c.Source)
			}
			if !seen[callee] {
				seen[callee] = true
				queue = append(queue, callee)
			}
		}
	}
	return nil
}
