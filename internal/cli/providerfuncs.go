package cli

import (
	"github.com/zclconf/go-cty/cty/function"

	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/workspace"
)

// providerFunctions serves a Terraform configuration's calls of its
// providers' functions (provider::NAME::FUNCTION): each provider installed
// and checked against the lock as for its resources, started once in the
// command for its functions, unconfigured, and stopped when the command
// ends (env.functions).
func (c *common) providerFunctions(env *Env) tfconfig.ProviderFunctions {
	return func(local, source, version string) (map[string]function.Function, error) {
		s, err := c.settings(env, "functions")
		if err != nil {
			return nil, err
		}
		return workspace.ProviderFunctions(env.ctx, s, env.functions, local, source, version)
	}
}
