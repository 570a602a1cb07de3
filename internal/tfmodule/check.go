package tfmodule

import (
	"context"
	"os"

	version "github.com/hashicorp/go-version"
	"github.com/hashicorp/hcl/v2"
)

// Check finds the modules of the configuration whose root module is in
// root where `kyku init` installed them, without fetching anything, as
// OpenTofu loads a configuration for plan and validate: a call the
// manifest does not have ("Module not installed"), whose source changed
// ("Module source has changed") or whose installed version the
// constraint no longer allows ("Module version requirements have
// changed") is an error asking for an init. Local paths must stay in
// their package and, with a boundary, in the repository, as Install has
// them. calls nil is ScanCalls. The modules under a changed call are not
// looked at: what is installed there is not what the call says.
func Check(ctx context.Context, root, boundary string, calls CallsFunc) ([]Module, hcl.Diagnostics) {
	w, err := newWalker(root, boundary, calls)
	if err != nil {
		return nil, hcl.Diagnostics{diagReadManifest(err)}
	}
	manifest, err := ReadManifest(w.root)
	if err != nil {
		return nil, hcl.Diagnostics{diagReadManifest(err)}
	}
	w.visit = func(_ context.Context, parent node, c call) (node, Module, bool) {
		rec, ok := manifest[c.key]
		if !ok {
			w.diags = append(w.diags, diagNotInstalled(c.Call))
			return node{}, Module{}, false
		}
		if now := c.src.String(); rec.Source != now {
			w.diags = append(w.diags, diagSourceChanged(c.Call, rec.Source, now))
			return node{}, Module{}, false
		}
		if len(c.constraint) > 0 && rec.Version == "" {
			w.diags = append(w.diags, diagVersionChanged(c.Call, ""))
		}
		if rec.Version != "" {
			if v, err := version.NewVersion(rec.Version); err == nil && !c.constraint.Check(v) {
				w.diags = append(w.diags, diagVersionChanged(c.Call, rec.Version))
			}
		}
		dir := w.abs(rec.Dir)
		if !w.recordIsWhere(parent, c, rec) {
			if c.src.Kind == Local {
				// Say why: escaping its package, or unreadable.
				if _, d := w.local(parent, c); d != nil {
					w.diags = append(w.diags, d)
					return node{}, Module{}, false
				}
			}
			w.diags = append(w.diags, diagCacheMoved(c.Call, rec.Dir))
			return node{}, Module{}, false
		}
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			w.diags = append(w.diags, diagCacheUnreadable(c.Call, rec.Dir))
			return node{}, Module{}, false
		}
		return w.childOf(parent, c, dir), Module{Path: c.path, Key: c.key, Dir: dir, Source: rec.Source, Version: rec.Version}, true
	}
	return w.run(ctx), w.diags
}
