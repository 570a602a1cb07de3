package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/kyku/action/internal/workspace"
)

// cmdInit is kyku init: install the configuration's Terraform providers
// (from the mirror, or their registries with signatures and checksums
// checked) and write the lock file beside the configuration, recording
// each one's version and hashes. Locked providers keep their version
// (--upgrade chooses the newest the constraint allows again); a package
// that matches none of its lock entry's hashes is refused.
func cmdInit(ctx context.Context, env *Env, args []string) error {
	return initProviders(ctx, env, "init", args)
}

// cmdProviders is kyku providers lock (kyku init under the name Terraform
// users know for writing the lock) and kyku providers mirror DIR.
func cmdProviders(ctx context.Context, env *Env, args []string) error {
	switch {
	case len(args) > 0 && args[0] == "lock":
		return initProviders(ctx, env, "providers lock", args[1:])
	case len(args) > 0 && args[0] == "mirror":
		return cmdProvidersMirror(ctx, env, args[1:])
	case len(args) > 0 && (args[0] == "-h" || args[0] == "--help"):
		fmt.Fprintln(env.Stdout, "Usage: kyku providers lock [flags]\n       kyku providers mirror [flags] DIR\n\nlock writes the lock file of the configuration's Terraform providers (as kyku init does); --upgrade chooses their newest allowed versions again.\nmirror downloads them into DIR, a mirror for KYKU_PLUGIN_MIRROR (--platform OS_ARCH, repeatable).")
		return nil
	}
	return fmt.Errorf("providers: want the subcommand lock or mirror (kyku providers lock, kyku providers mirror DIR)")
}

// providersLock is the help of kyku providers lock.
var providersLock = command{name: "providers lock",
	summary: "Write the lock file of the configuration's Terraform providers, as kyku init does, without installing its modules (--upgrade chooses the newest versions the constraints allow again)."}

func initProviders(ctx context.Context, env *Env, name string, args []string) error {
	fs := newFlags(name, env)
	if name == providersLock.name {
		fs.cmd = providersLock
	}
	c := common{noFunctions: true}
	c.register(fs, env)
	upgrade := fs.Bool("upgrade", false, "choose the newest version each constraint allows, replacing the locked ones")
	lockfile := new(string)
	get := true
	if name == "init" {
		fs.StringVar(lockfile, "lockfile", "", "readonly: refuse to change the lock file, as tofu init -lockfile=readonly (a provider or hash it lacks is an error)")
		fs.BoolVar(&get, "get", true, "install the modules (false: use those installed, as tofu init -get=false)")
		// tofu init's backend flags: Kyku's init never initializes the
		// backend (every command reads the backend block itself), so
		// there is nothing to skip or reconfigure.
		fs.Bool("backend", true, "taken for tofu init -backend=false: kyku init never initializes the backend (each command reads the backend block)")
		fs.Bool("reconfigure", false, "taken for tofu init -reconfigure: kyku keeps no backend settings to reconfigure")
	}
	if err := fs.parseNone(args); err != nil {
		return err
	}
	switch *lockfile {
	case "", "readonly":
	default:
		return fmt.Errorf("-lockfile=%s: the only mode is readonly", *lockfile)
	}
	if *lockfile == "readonly" && *upgrade {
		return fmt.Errorf("-lockfile=readonly and --upgrade: an upgrade changes the lock file; choose one")
	}
	if name == "init" && get && c.terraform() {
		if err := c.initModules(ctx, env, *upgrade); err != nil {
			return err
		}
	}
	cfg, err := c.load(env)
	if err != nil {
		return err
	}
	s, err := c.settings(env, name)
	if err != nil {
		return err
	}
	if len(cfg.Providers) == 0 {
		fmt.Fprintln(env.Stdout, "The configuration uses no Terraform providers: nothing to install.")
		return nil
	}
	s.Plugins.Notice = func(line string) { env.notices.say(line, false) }
	s.Plugins.ReadOnlyLock = *lockfile == "readonly"
	got, path, err := workspace.Init(ctx, cfg, s, *upgrade)
	if err != nil {
		return err
	}
	for i, in := range got {
		fmt.Fprintf(env.Stdout, "- %s: %s %s\n", cfg.Providers[i].Name, in.Source, in.Version)
	}
	rel := path
	if r, err := filepath.Rel(".", path); err == nil && len(r) < len(path) {
		rel = r
	}
	if s.Plugins.ReadOnlyLock {
		fmt.Fprintf(env.Stdout, "%s records exactly these packages (read-only: not written).\n", rel)
		return nil
	}
	fmt.Fprintf(env.Stdout, "Wrote %s: commit it; plan and apply use exactly these packages and refuse any other.\n", rel)
	return nil
}
