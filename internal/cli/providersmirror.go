package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/kyku/action/internal/tfinstall"
	"github.com/kyku/action/internal/workspace"
)

// providersMirror is the help of kyku providers mirror.
var providersMirror = command{name: "providers mirror", args: "DIR",
	summary: "Download the configuration's Terraform providers from their registries into DIR, laid out as `tofu providers mirror` lays it out, for this machine's platform or each --platform: DIR then serves as KYKU_PLUGIN_MIRROR (or --plugin-mirror) where the registries cannot be reached. With a lock file, its versions are mirrored."}

// cmdProvidersMirror is kyku providers mirror DIR [--platform OS_ARCH]…:
// every provider the configuration requires, downloaded and checked as
// kyku init checks it, into DIR in the packed layout with the index files
// of a network mirror.
func cmdProvidersMirror(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(providersMirror.name, env)
	fs.cmd = providersMirror
	var c common
	c.register(fs, env)
	var platforms listFlags
	fs.Var(&platforms, "platform", "mirror the packages for `OS_ARCH`, such as linux_amd64 (repeatable; default this machine's)")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("providers mirror: want the directory to fill, as kyku providers mirror DIR (got %d arguments)", len(pos))
	}
	targets := []tfinstall.Platform{{OS: runtime.GOOS, Arch: runtime.GOARCH}}
	if len(platforms) > 0 {
		targets = targets[:0]
		for _, s := range platforms {
			p, err := tfinstall.ParsePlatform(s)
			if err != nil {
				return fmt.Errorf("--platform: %w", err)
			}
			targets = append(targets, p)
		}
	}
	dir, err := filepath.Abs(pos[0])
	if err != nil {
		return fmt.Errorf("providers mirror %s: %w", pos[0], err)
	}
	cfg, err := c.load(env)
	if err != nil {
		return err
	}
	s, err := c.settings(env, providersMirror.name)
	if err != nil {
		return err
	}
	if len(cfg.Providers) == 0 {
		fmt.Fprintln(env.Stdout, "The configuration uses no Terraform providers: nothing to mirror.")
		return nil
	}
	s.Plugins.Notice = func(line string) { env.notices.say(line, false) }
	got, err := workspace.MirrorProviders(ctx, cfg, s, dir, targets)
	for _, m := range got {
		names := make([]string, len(m.Platforms))
		for i, p := range m.Platforms {
			names[i] = p.String()
		}
		fmt.Fprintf(env.Stdout, "- %s %s: %s\n", m.Source, m.Version, strings.Join(names, ", "))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Wrote %s: where the registries cannot be reached, set %s=%s (or --plugin-mirror) and run kyku init.\n", pos[0], tfinstall.EnvMirror, dir)
	return nil
}
