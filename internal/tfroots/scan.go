package tfroots

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"

	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/tfmodule"
)

// dirInfo is what finding roots needs of one directory of configuration
// files.
type dirInfo struct {
	backend bool     // a terraform block holds a backend block
	calls   []string // the directories its local module calls run, slash, from the tree's top
	links   []string // configuration files that are symbolic links
	// dynamic: a call's source reads variables or locals, which only
	// its root's values decide: any configuration the change touches
	// may be the module it runs.
	dynamic bool
}

// scanDir reads the directory rel (slash) of the tree at top; ok is false
// when it holds no configuration file. A file that does not parse adds
// nothing: loading the root reports it.
func scanDir(top, rel string) (info dirInfo, ok bool) {
	dir := filepath.Join(top, filepath.FromSlash(rel))
	primary, override, _ := tfmodule.ConfigFiles(dir)
	files := append(primary, override...)
	if len(files) == 0 {
		return info, false
	}
	p := hclparse.NewParser()
	for _, f := range files {
		if st, err := os.Lstat(f); err != nil || !st.Mode().IsRegular() {
			info.links = append(info.links, path.Join(rel, filepath.Base(f)))
			continue
		}
		if hasBackend(p, f) {
			info.backend = true
		}
	}
	calls, _ := tfmodule.ScanCalls(dir)
	if slices.ContainsFunc(calls, func(c tfmodule.Call) bool { return c.Dynamic }) {
		// Read as a root would read them (its variables' defaults and
		// variables files): the modules it runs then are its callees;
		// what another root passes in, or a --var, may run others
		// (dynamic).
		info.dynamic = true
		calls, _ = tfconfig.EarlyCalls(tfconfig.Inputs{})(dir, nil)
	}
	for _, c := range calls {
		if !isLocal(c.Source) {
			continue
		}
		callee := path.Join(rel, c.Source)
		if callee == ".." || strings.HasPrefix(callee, "../") {
			continue // outside the repository: loading refuses it
		}
		info.calls = append(info.calls, callee)
	}
	return info, true
}

// isLocal reports whether a module source is a local path, as OpenTofu
// tells them: "./" or "../" first.
func isLocal(source string) bool {
	return strings.HasPrefix(source, "./") || strings.HasPrefix(source, "../")
}

// hasBackend reports whether file's terraform blocks hold a backend block.
func hasBackend(p *hclparse.Parser, file string) bool {
	var f *hcl.File
	if strings.HasSuffix(file, ".json") {
		f, _ = p.ParseJSONFile(file)
	} else {
		f, _ = p.ParseHCLFile(file)
	}
	if f == nil {
		return false
	}
	content, _, _ := f.Body.PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "terraform"}}})
	for _, b := range content.Blocks {
		inner, _, _ := b.Body.PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "backend", LabelNames: []string{"type"}}}})
		if len(inner.Blocks) > 0 {
			return true
		}
	}
	return false
}
