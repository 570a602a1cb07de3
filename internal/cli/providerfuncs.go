package cli

import (
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/kyku/action/internal/lang/funcs"
	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/workspace"
)

// providerFunctions serves a Terraform configuration's calls of its
// providers' functions (provider::NAME::FUNCTION): each provider installed
// and checked against the lock as for its resources
// (workspace.FunctionProvider), started once in the command for its
// functions, unconfigured, and stopped when the command ends
// (env.functions).
func (c *common) providerFunctions(env *Env) tfconfig.ProviderFunctions {
	return func(local, source, version string) (map[string]function.Function, error) {
		s, err := c.settings(env, "functions")
		if err != nil {
			return nil, err
		}
		fp, err := workspace.FunctionProvider(env.ctx, s, local, source, version)
		if err != nil {
			return nil, err
		}
		env.functions.Add(fp)
		specs, err := fp.List(env.ctx)
		if err != nil {
			return nil, err
		}
		return funcs.ProviderFunctions(specs, func(name string, args []cty.Value) (cty.Value, error) {
			return fp.Call(env.ctx, name, args)
		}), nil
	}
}
