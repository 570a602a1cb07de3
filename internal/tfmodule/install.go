package tfmodule

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	version "github.com/hashicorp/go-version"
	"github.com/hashicorp/hcl/v2"

	"github.com/kyku/action/internal/tfinstall"
)

// Installer installs the modules a root module calls, and the modules
// they call, into the root module's directory as OpenTofu's init does:
// remote packages under .terraform/modules/<key>, local paths where they
// are, and .terraform/modules/modules.json saying where each is. An
// Installer is used by one goroutine at a time.
type Installer struct {
	// HTTP makes the registry's and https sources' requests (its timeouts
	// and proxies are the caller's); nil: http.DefaultClient.
	HTTP *http.Client
	// Git runs git for git:: sources.
	Git Git
	// Calls finds a module directory's calls; nil: ScanCalls.
	Calls CallsFunc
	// Credentials, when set, adds a registry host's token to the requests
	// of its API, and of a package it serves itself when its answer asks
	// for its credentials: only those that go to that host itself, never
	// to another one a service URL, a package URL or a redirect names.
	Credentials tfinstall.Authorizer
	// Boundary, when set, is the repository: a local path of the root's
	// own package, and an absolute path, must stay inside it.
	Boundary string
	// Hooks hear what is downloaded and installed; nil: nothing.
	Hooks Hooks
	// Limits bound what a package may cost.
	Limits Limits

	reg      *registry
	boundary string
}

// Install installs every module of the configuration whose root module
// is in root (upgrade: every one again, choosing registry versions
// anew; otherwise only those whose source or version constraint
// changed, or that are not installed) and writes the manifest, even when
// some failed, as OpenTofu does. It returns the modules installed.
func (in *Installer) Install(ctx context.Context, root string, upgrade bool) ([]Module, hcl.Diagnostics) {
	w, err := newWalker(root, in.Boundary, in.Calls)
	if err != nil {
		return nil, hcl.Diagnostics{diagReadManifest(err)}
	}
	manifest, err := ReadManifest(w.root)
	if err != nil {
		return nil, hcl.Diagnostics{diagReadManifest(err)}
	}
	manifest[""] = Record{Key: "", Dir: "."}
	if err := os.MkdirAll(filepath.Join(w.root, filepath.FromSlash(ModulesDir)), 0o755); err != nil {
		return nil, hcl.Diagnostics{diagWriteManifest(err)}
	}
	in.reg = &registry{http: in.HTTP, creds: in.Credentials}
	in.boundary = w.boundary
	ins := &installing{in: in, w: w, manifest: manifest, upgrade: upgrade, fetch: &fetcher{in: in}, located: map[string]location{}, hooks: in.Hooks}
	if ins.hooks == nil {
		ins.hooks = noHooks{}
	}
	w.visit = ins.visit
	mods := w.run(ctx)
	if err := manifest.write(w.root); err != nil {
		w.diags = append(w.diags, diagWriteManifest(err))
	}
	return mods, w.diags
}

// installing is one Install.
type installing struct {
	in       *Installer
	w        *walker
	manifest Manifest
	upgrade  bool
	fetch    *fetcher
	located  map[string]location // by package, version and subdirectory
	hooks    Hooks
}

func (s *installing) visit(ctx context.Context, parent node, c call) (node, Module, bool) {
	rec, recorded := s.manifest[c.key]
	if recorded && !s.upgrade && rec.Source == c.src.String() && s.w.recordIsWhere(parent, c, rec) {
		ok := rec.Version == ""
		if !ok {
			v, err := version.NewVersion(rec.Version)
			ok = err == nil && c.constraint.Check(v)
		}
		dir := s.w.abs(rec.Dir)
		if info, err := os.Stat(dir); ok && err == nil && info.IsDir() {
			return s.w.childOf(parent, c, dir), Module{Path: c.path, Key: c.key, Dir: dir, Source: rec.Source, Version: rec.Version}, true
		}
	}
	// (Re)install: forget the module and everything under it.
	if recorded {
		for k := range s.manifest {
			if k == c.key || strings.HasPrefix(k, c.key+".") {
				delete(s.manifest, k)
			}
		}
	}
	inst := s.w.installDir(c.key)
	if _, err := os.Lstat(inst); err == nil {
		if err := os.RemoveAll(inst); err != nil {
			s.w.diags = append(s.w.diags, diagRemoveCache(inst, err))
			return node{}, Module{}, false
		}
	}
	var child node
	var v string
	var d hcl.Diagnostics
	switch c.src.Kind {
	case Local:
		var ld *hcl.Diagnostic
		if child, ld = s.w.local(parent, c); ld != nil {
			d = hcl.Diagnostics{ld}
		}
	case Registry:
		child, v, d = s.registry(ctx, parent, c, inst)
	default:
		child, d = s.remote(ctx, parent, c, inst)
	}
	s.w.diags = append(s.w.diags, d...)
	if d.HasErrors() {
		return node{}, Module{}, false
	}
	rel := s.w.rel(child.dir)
	s.manifest[c.key] = Record{Key: c.key, Source: c.src.String(), Version: v, Dir: rel}
	s.hooks.Install(c.key, v, filepath.ToSlash(rel))
	return child, Module{Path: c.path, Key: c.key, Dir: child.dir, Source: c.src.String(), Version: v}, true
}

// remote fetches a remote package into inst; the module is its
// subdirectory (a glob matching one directory).
func (s *installing) remote(ctx context.Context, parent node, c call, inst string) (node, hcl.Diagnostics) {
	s.hooks.Download(c.key, redact(c.src.Package), "")
	if err := s.fetch.fetch(ctx, c.src.Package, inst); err != nil {
		if errors.Is(err, context.Canceled) {
			return node{}, hcl.Diagnostics{diagInterrupted(c.Call)}
		}
		return node{}, hcl.Diagnostics{diagDownload(c.Call, redact(c.src.Package), err, false)}
	}
	dir, err := subdirOf(inst, c.src.Subdir)
	if err != nil {
		return node{}, hcl.Diagnostics{diagSubdirGlob(err)}
	}
	return s.w.childOf(parent, c, dir), s.inPackage(c, inst, dir)
}

// registry chooses the version, asks the registry where it is and
// fetches it into inst.
func (s *installing) registry(ctx context.Context, parent node, c call, inst string) (node, string, hcl.Diagnostics) {
	p := c.src.Registry
	listed, err := s.in.reg.listVersions(ctx, p)
	switch {
	case errors.Is(err, ErrModuleNotFound):
		return node{}, "", hcl.Diagnostics{diagModuleNotFound(c.Call, p)}
	case errors.Is(err, context.Canceled):
		return node{}, "", hcl.Diagnostics{diagInterrupted(c.Call)}
	case errors.Is(err, errInvalidAnswer):
		return node{}, "", hcl.Diagnostics{diagRegistryInvalid(c.Call, p.Host)}
	case err != nil:
		return node{}, "", hcl.Diagnostics{diagRegistryVersions(c.Call, p.Host, err)}
	}
	sel := choose(listed, c.constraint, c.Version)
	var diags hcl.Diagnostics
	for _, b := range sel.bad {
		diags = append(diags, warnRegistryVersion(c.Call, p.Host, b))
	}
	switch {
	case sel.newest == nil:
		return node{}, "", append(diags, diagNoVersions(c.Call, c.src))
	case sel.match == nil:
		return node{}, "", append(diags, diagUnresolvable(c.Call, c.src, sel.newest.String()))
	}
	v := sel.match.String()
	s.hooks.Download(c.key, p.String(), v)
	lkey := p.String() + " " + v + " " + c.src.Subdir
	loc, ok := s.located[lkey]
	if !ok {
		if loc, err = s.in.reg.locate(ctx, p, v, c.src.Subdir); err != nil {
			return node{}, "", append(diags, diagLocate(c.src, v, err))
		}
		s.located[lkey] = loc
	}
	subdir := loc.subdir
	if loc.direct != nil {
		tokenOf := ""
		if loc.useCreds {
			tokenOf = p.Host
		}
		err = s.fetch.archive(ctx, loc.direct, "", nil, tokenOf, inst)
	} else {
		subdir = loc.indirect.Subdir
		err = s.fetch.fetchAnswered(ctx, loc.indirect.Package, inst)
	}
	if errors.Is(err, context.Canceled) {
		return node{}, "", append(diags, diagInterrupted(c.Call))
	}
	if err != nil {
		os.RemoveAll(inst)
		return node{}, "", append(diags, diagDownload(c.Call, loc.String(), err, true))
	}
	// As OpenTofu 1.12: the registry's subdirectory is joined, not globbed.
	dir := filepath.Join(inst, filepath.FromSlash(subdir))
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return node{}, "", append(diags, diagSubdirMissing(c.Call, inst, subdir))
	}
	return s.w.childOf(parent, c, dir), v, append(diags, s.inPackage(c, inst, dir)...)
}

// inPackage: the module's directory, links resolved, is inside its
// package (a subdirectory through a link could leave it).
func (s *installing) inPackage(c call, inst, dir string) hcl.Diagnostics {
	pkg, err1 := realPath(inst)
	real, err2 := realPath(dir)
	if err1 != nil || err2 != nil {
		return hcl.Diagnostics{diagSubdirMissing(c.Call, inst, c.src.Subdir)}
	}
	if !within(pkg, real) {
		return hcl.Diagnostics{diagSubdirEscapes(c.Call, c.src.Subdir, real)}
	}
	return nil
}
