package tfmodule

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"

	version "github.com/hashicorp/go-version"
	"github.com/hashicorp/hcl/v2"
)

// Module is a module of the configuration's static tree, once installed.
type Module struct {
	// Path is the module calls leading to it ("net", "subnets").
	Path []string
	// Key is Path joined by "." (the manifest's key).
	Key string
	// Dir is its directory, absolute.
	Dir string
	// Source is the call's source, normalized; Version the version
	// installed from a registry ("" for other sources).
	Source, Version string
}

// Bounds on the static tree: a module that calls itself never ends.
const (
	maxDepth   = 64
	maxModules = 10_000
)

// node is a module the walk is in.
type node struct {
	path []string
	dir  string // absolute, links resolved
	// pkg is the directory of the remote package the module belongs to
	// (its local calls must stay in it), pkgAddr that package's address;
	// "" for the root module's own package (the repository).
	pkg, pkgAddr string
}

// call is one module call the walk met, parsed.
type call struct {
	Call
	path       []string
	key        string
	src        Source
	constraint version.Constraints
}

// visitFunc installs (or finds) the module c calls from parent; ok false
// leaves its calls unvisited.
type visitFunc func(ctx context.Context, parent node, c call) (child node, m Module, ok bool)

// walker walks the static module tree from the root module, as OpenTofu
// builds its configuration: calls in name order, depth first.
type walker struct {
	root     string // the root module's directory, absolute, links resolved
	boundary string // the repository ("": none), likewise
	calls    CallsFunc
	visit    visitFunc
	count    int
	stopped  bool // too deep, too many: the walk is over
	mods     []Module
	diags    hcl.Diagnostics
}

func newWalker(root, boundary string, calls CallsFunc) (*walker, error) {
	r, err := realPath(root)
	if err != nil {
		return nil, err
	}
	w := &walker{root: r, calls: calls}
	if w.calls == nil {
		w.calls = func(dir string, _ []string) ([]Call, hcl.Diagnostics) { return ScanCalls(dir) }
	}
	if boundary != "" {
		if w.boundary, err = realPath(boundary); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// run walks the tree and returns its modules by key.
func (w *walker) run(ctx context.Context) []Module {
	w.walk(ctx, node{dir: w.root})
	sort.Slice(w.mods, func(i, j int) bool { return w.mods[i].Key < w.mods[j].Key })
	return w.mods
}

func (w *walker) walk(ctx context.Context, parent node) {
	calls, ds := w.calls(parent.dir, parent.path)
	w.diags = append(w.diags, ds...)
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].Name < calls[j].Name })
	for _, c := range calls {
		if w.stopped {
			return
		}
		if ctx.Err() != nil {
			w.diags = append(w.diags, diagInterrupted(c))
			return
		}
		path := append(slices.Clone(parent.path), c.Name)
		if len(path) > maxDepth {
			w.diags = append(w.diags, diagTooDeep(c, path))
			w.stopped = true
			return
		}
		if w.count++; w.count > maxModules {
			w.diags = append(w.diags, diagTooMany(c))
			w.stopped = true
			return
		}
		if c.Dynamic {
			w.diags = append(w.diags, diagDynamic(c))
			continue
		}
		pc, ok := w.parse(c, path)
		if !ok {
			continue
		}
		child, m, ok := w.visit(ctx, parent, pc)
		if !ok {
			continue
		}
		w.mods = append(w.mods, m)
		w.walk(ctx, child)
	}
}

// parse reads c's version constraint and source; with a version
// argument the source must be a registry address, as OpenTofu has it.
func (w *walker) parse(c Call, path []string) (call, bool) {
	pc := call{Call: c, path: path, key: Key(path)}
	ok := true
	if c.HasVersion {
		cons, err := version.NewConstraint(c.Version)
		if err != nil {
			w.diags = append(w.diags, diagInvalidConstraint(c))
			ok = false
		}
		pc.constraint = cons
		if isLocal(c.Source) {
			w.diags = append(w.diags, diagInvalidSource(c, errors.New("can't use local directory "+quote(c.Source)+" as a module registry address"), true))
			return pc, false
		}
		p, subdir, err := parseRegistry(c.Source)
		if err != nil {
			w.diags = append(w.diags, diagInvalidSource(c, err, true))
			return pc, false
		}
		pc.src = Source{Kind: Registry, Registry: p, Subdir: subdir}
		return pc, ok
	}
	src, err := ParseSource(c.Source)
	if err != nil {
		w.diags = append(w.diags, diagInvalidSource(c, err, false))
		return pc, false
	}
	pc.src = src
	return pc, ok
}

func quote(s string) string { return `"` + s + `"` }

// local resolves a local call from parent: its directory with links
// resolved, which must stay in parent's remote package, or in the
// repository when parent is of the root's own package.
func (w *walker) local(parent node, c call) (node, *hcl.Diagnostic) {
	dir := filepath.Join(parent.dir, filepath.FromSlash(c.src.Path))
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return node{}, diagUnreadableLocal(c.Call, dir)
	}
	if parent.pkg != "" {
		pkg, err := realPath(parent.pkg)
		if err != nil || !within(pkg, real) {
			return node{}, diagEscapesPackage(c.Call, c.path, parent.pkgAddr)
		}
	} else if w.boundary != "" && !within(w.boundary, real) {
		return node{}, diagEscapesRepository(c.Call, c.path, real, w.boundary)
	}
	if info, err := os.Stat(real); err != nil || !info.IsDir() {
		return node{}, diagUnreadableLocal(c.Call, dir)
	}
	return node{path: c.path, dir: real, pkg: parent.pkg, pkgAddr: parent.pkgAddr}, nil
}

// installDir is where the package of the module key is installed.
func (w *walker) installDir(key string) string {
	return filepath.Join(w.root, filepath.FromSlash(ModulesDir), key)
}

// rel is dir relative to the root module, as the manifest records it.
func (w *walker) rel(dir string) string {
	r, err := filepath.Rel(w.root, dir)
	if err != nil {
		return dir
	}
	return r
}

// abs is a manifest Dir as a path.
func (w *walker) abs(dir string) string {
	if filepath.IsAbs(dir) {
		return filepath.Clean(dir)
	}
	return filepath.Join(w.root, dir)
}

// recordIsWhere reports whether rec puts the module c calls from parent
// where installing it would: a manifest is a file in the working
// directory, which a pull request can write, so its directories are not
// taken on trust.
func (w *walker) recordIsWhere(parent node, c call, rec Record) bool {
	if c.src.Kind == Local {
		n, d := w.local(parent, c)
		return d == nil && w.abs(rec.Dir) == n.dir
	}
	return within(w.installDir(c.key), w.abs(rec.Dir))
}

// childOf is the node of a module installed in dir (an installed package
// at inst, or a local one).
func (w *walker) childOf(parent node, c call, dir string) node {
	if c.src.Kind == Local {
		return node{path: c.path, dir: dir, pkg: parent.pkg, pkgAddr: parent.pkgAddr}
	}
	pkgAddr := c.src.Package
	if c.src.Kind == Registry {
		pkgAddr = c.src.Registry.String()
	}
	return node{path: c.path, dir: dir, pkg: w.installDir(c.key), pkgAddr: pkgAddr}
}
