package tfroots

import (
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Options narrow where roots are found.
type Options struct {
	// Dir is the working directory, slash, relative to the tree's top
	// ("" or "."): only roots inside it are found.
	Dir string
}

// Found is what Find found.
type Found struct {
	// Roots are the directories to plan, slash, from the tree's top,
	// sorted.
	Roots []string
	// Outside are touched roots outside Options.Dir, left alone.
	Outside []string
	// Links are configuration files that are symbolic links: never read
	// (a link could bring in another root's backend, or a file outside
	// the repository).
	Links []string
}

// Find finds the roots a pull request touches in the tree at top (as
// Materialize writes it), given the files it changed (slash paths; a
// renamed file under both names), as Atlantis' autoplan finds them with
// when_modified's default "*.tf*": every directory of configuration
// files in which a file matching *.tf* (.tf, .tf.json, .tfvars, .tofu
// and the like) changed, and every directory that calls a touched one as
// a local module ("./…", "../…"), transitively; a directory whose module
// sources read variables or locals (which its root's values decide) is
// touched by any such change. Of those, a directory is
// a root when it has a backend block, or when no other directory calls
// it: a module only is not one.
func Find(top string, changed []string, opts Options) Found {
	dirs := map[string]dirInfo{}
	_ = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		rel, rerr := filepath.Rel(top, p)
		if rerr != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir // .git, .terraform (installed modules), .github
		}
		if info, ok := scanDir(top, rel); ok {
			dirs[rel] = info
		}
		return nil
	})
	callers := map[string][]string{}
	for dir, info := range dirs {
		for _, callee := range info.calls {
			if callee != dir {
				callers[callee] = append(callers[callee], dir)
			}
		}
	}
	touched := map[string]bool{}
	var queue []string
	for _, f := range changed {
		if !Touches(f) {
			continue
		}
		if d := path.Dir(f); !touched[d] {
			touched[d] = true
			queue = append(queue, d)
		}
	}
	if len(queue) > 0 {
		// A directory whose calls' sources read variables may run any
		// module the change touched: it is touched too.
		for d, info := range dirs {
			if info.dynamic && !touched[d] {
				touched[d] = true
				queue = append(queue, d)
			}
		}
	}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		for _, c := range callers[d] {
			if !touched[c] {
				touched[c] = true
				queue = append(queue, c)
			}
		}
	}
	var out Found
	within := path.Clean("/" + opts.Dir)
	for d := range touched {
		info, ok := dirs[d]
		if !ok || !(info.backend || len(callers[d]) == 0) {
			continue
		}
		if abs := path.Join("/", d); abs != within && !strings.HasPrefix(abs, strings.TrimSuffix(within, "/")+"/") {
			out.Outside = append(out.Outside, d)
			continue
		}
		if len(info.links) > 0 {
			out.Links = append(out.Links, info.links...)
		}
		out.Roots = append(out.Roots, d)
	}
	slices.Sort(out.Roots)
	slices.Sort(out.Outside)
	slices.Sort(out.Links)
	return out
}

// Touches reports whether a change to the file at p (slash) touches its
// directory: Atlantis' when_modified default, "*.tf*", with OpenTofu's
// .tofu files and the lock file beside them.
func Touches(p string) bool {
	name := path.Base(p)
	if name == ".terraform.lock.hcl" {
		return true
	}
	ext := path.Ext(name)
	if ext == ".json" {
		ext = path.Ext(strings.TrimSuffix(name, ".json"))
	}
	return strings.HasPrefix(ext, ".tf") || ext == ".tofu"
}

// Configs are the names among files (slash paths) that touch their
// directory (Touches), sorted: given to Find as changed, every root.
func Configs(files map[string][]byte) []string {
	var out []string
	for name := range files {
		if Touches(name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
