package cli

import (
	"sync"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/kyku/action/internal/lang/funcs"
	"github.com/kyku/action/internal/provider/tfprovider"
	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/workspace"
)

// providerFunctions serves a Terraform configuration's calls of its
// providers' functions (provider::NAME::FUNCTION): each provider installed
// and checked against the lock as for its resources
// (workspace.FunctionProvider), started once in the command for its
// functions, unconfigured, and stopped when the command ends.
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
		env.functions.add(fp)
		specs, err := fp.List(env.ctx)
		if err != nil {
			return nil, err
		}
		out := make(map[string]function.Function, len(specs))
		for name, spec := range specs {
			out[name] = funcs.ProviderFunction(spec, func(args []cty.Value) (cty.Value, error) {
				return fp.Call(env.ctx, name, args)
			})
		}
		return out, nil
	}
}

// functionServers are the providers a command started for their
// functions.
type functionServers struct {
	mu   sync.Mutex
	list []*tfprovider.Functions
}

func (s *functionServers) add(f *tfprovider.Functions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.list = append(s.list, f)
}

// close stops them.
func (s *functionServers) close() {
	s.mu.Lock()
	list := s.list
	s.list = nil
	s.mu.Unlock()
	for _, f := range list {
		f.Close()
	}
}
