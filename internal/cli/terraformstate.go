package cli

import (
	"fmt"

	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/tfstate"
	"github.com/kyku/action/internal/workspace"
)

// A Terraform root's state is OpenTofu's: where its backend block says
// (none: terraform.tfstate in the root's directory, as `tofu -chdir=DIR`
// keeps it), in OpenTofu's format and under its lock, the workspace
// being -e ("default" without it). --backend-config FILE and
// --backend-config KEY=VALUE (repeatable, in order, a later one winning)
// configure the block as `tofu init -backend-config` does; Kyku keeps no
// record of them between runs, so every command that reads the state
// takes them.

// backendConfigUsage is the help of --backend-config.
const backendConfigUsage = "configure the Terraform root's backend block as tofu init -backend-config does: a `FILE` of arguments, or KEY=VALUE (repeatable; a later one wins)"

// terraformState is where the Terraform root in -c keeps its state; nil
// for a Kyku configuration, which --backend-config does not configure.
func (c *common) terraformState() (*workspace.TerraformState, error) {
	if c.tf == nil {
		if len(c.backendConfig) > 0 {
			return nil, fmt.Errorf("--backend-config %s: it configures a directory of .tf files' backend block; %s is a Kyku configuration (its backend: section says where its state is)", c.backendConfig[0], c.config)
		}
		return nil, nil
	}
	ba, err := tfconfig.RootBackend(c.tf.module, c.tf.inputs, c.backendConfig)
	if err != nil {
		return nil, err
	}
	dir, err := configDir(c.config)
	if err != nil {
		return nil, err
	}
	m := c.tf.module
	return &workspace.TerraformState{
		Type: ba.Type, Args: ba.Args, Dir: dir, Where: ba.Pos.String(),
		Provider: func(a tfstate.InstanceAddr) string {
			return tfconfig.StateProvider(m, tfconfig.ModuleCalls(a.Module), a.Mode == tfstate.Data, a.Type, a.Name)
		},
		KykuType: func(typ, provider string) string { return tfconfig.KykuType(m, typ, provider) },
	}, nil
}
