package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/kyku/action/internal/tfinstall"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/workspace"
)

// confine sets pl to run every provider sandboxed when --sandbox asks:
// with the whole environment kyku has (pl.Env), the files of
// --sandbox-file and nothing else of the person's. Without it providers
// are the person's own programs, as Terraform runs them.
func (c *common) confine(env *Env, pl *workspace.Plugins) error {
	if len(c.sandboxFiles) > 0 && !c.sandbox {
		return errors.New("--sandbox-file without --sandbox: unsandboxed providers read every file of yours anyway")
	}
	if !c.sandbox {
		return nil
	}
	sb, err := c.providerSandbox(env)
	if err != nil {
		return err
	}
	all := pl.Env
	pl.Confine = func(tfinstall.Source) (workspace.Confinement, error) {
		return workspace.Confinement{Sandbox: sb, Env: all}, nil
	}
	return nil
}

// providerSandbox is --sandbox's: a network of their own, reached through
// Kyku's proxy, which refuses the metadata addresses and
// KYKU_PROVIDER_DENY's, when kyku runs as root (this machine's own
// services stay reachable), this machine's network as it is otherwise;
// the files of --sandbox-file.
func (c *common) providerSandbox(env *Env) (tfplugin.Sandbox, error) {
	deny, err := workspace.ParseDeny(env.Getenv("KYKU_PROVIDER_DENY"))
	if err != nil {
		return tfplugin.Sandbox{}, err
	}
	sb := tfplugin.Sandbox{Network: tfplugin.NetworkBest, Deny: append(tfplugin.MetadataNets(), deny...)}
	for _, f := range c.sandboxFiles {
		abs, err := filepath.Abs(f)
		if err != nil {
			return sb, fmt.Errorf("--sandbox-file %s: %w", f, err)
		}
		sb.Files = append(sb.Files, abs)
	}
	return sb, nil
}
