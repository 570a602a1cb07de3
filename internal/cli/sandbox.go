package cli

import (
	"errors"

	"github.com/kyku/action/internal/workspace"
)

// confine sets pl to run every provider sandboxed when --sandbox asks
// (workspace.OwnSandbox): with the whole environment kyku has (pl.Env),
// the files of --sandbox-file and nothing else of the person's. Without
// it providers are the person's own programs, as Terraform runs them.
func (c *common) confine(env *Env, pl *workspace.Plugins) error {
	if len(c.sandboxFiles) > 0 && !c.sandbox {
		return errors.New("--sandbox-file without --sandbox: unsandboxed providers read every file of yours anyway")
	}
	if !c.sandbox {
		return nil
	}
	sb, err := workspace.OwnSandbox(env.Getenv("KYKU_PROVIDER_DENY"), c.sandboxFiles)
	if err != nil {
		return err
	}
	pl.Confine = workspace.ConfineAll(sb, pl.Env)
	return nil
}
