package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version says which kyku this is. Go records the module version (a tag,
// or a pseudo-version built from the commit in a checkout; "(devel)" when
// it cannot tell) and the commit in every binary; a release build may
// override them with -ldflags -X (see cmd/kyku).
type Version struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Modified bool   `json:"modified"` // built from a checkout with uncommitted changes
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// ReadVersion returns what the binary records about its build, with the
// non-empty fields of override in place of what Go recorded.
func ReadVersion(override Version) Version {
	v := Version{Version: "(devel)", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if override.Version != "" {
		v.Version = override.Version
	}
	if override.Commit != "" {
		v.Commit, v.Modified = override.Commit, override.Modified
	}
	return v
}

// cmdVersion prints the version; like terraform version, and as cheap: it
// reads no configuration and opens no backend or provider.
func cmdVersion(_ context.Context, env *Env, args []string) error {
	fs := newFlags("version", env)
	asJSON := fs.Bool("json", false, "print the version as JSON")
	if err := fs.parseNone(args); err != nil {
		return err
	}
	v := ReadVersion(env.Version)
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	commit := v.Commit
	switch {
	case commit == "":
		commit = "unknown (not built from a git checkout)"
	case v.Modified:
		commit += " (modified: built with uncommitted changes)"
	}
	_, err := fmt.Fprintf(env.Stdout, "kyku %s\ncommit %s\n%s %s\n", v.Version, commit, v.Go, v.Platform)
	return err
}
