package tfroots

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/zclconf/go-cty/cty/function"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/tfstate"
)

// ErrProviderFunctions refuses, at each call, a root calling a provider's
// functions (provider::NAME::FUNCTION) where Inputs.ProviderFunctions does
// not serve them (the bot, which reads roots without starting their
// providers): a call left unknown would apply what the plan did not
// show.
var ErrProviderFunctions = errors.New("the bot does not run providers' functions yet (kyku plan and apply do, and the Action)")

func noProviderFunctions(string, string, string) (map[string]function.Function, error) {
	return nil, ErrProviderFunctions
}

// Loaded is one root as a commit has it.
type Loaded struct {
	Root    string // slash, from the tree's top
	Top     string // the tree's top, on disk
	Dir     string // on disk, in the tree
	Module  *tfconfig.Module
	Config  *config.Config
	Backend *tfconfig.BackendArgs
}

// Load reads and expands the root at root (slash) of the tree at top,
// with in, and its backend configured with backendConfig (each a FILE,
// relative to the root, inside the tree, or KEY=VALUE) as OpenTofu's init
// takes -backend-config. Modules other than local paths must have been
// installed under the root (Installer). A count or for_each reading
// state or a data source leaves the configuration partial
// (config.Config.Pending): the engine completes it once the root's state
// is open (Engine.Complete). Errors name files by their repository paths,
// the completion's too.
func Load(ctx context.Context, top, root string, in tfconfig.Inputs, backendConfig []string) (*Loaded, error) {
	dir := filepath.Join(top, filepath.FromSlash(root))
	overrides := make([]string, len(backendConfig))
	for i, bc := range backendConfig {
		if strings.Contains(bc, "=") { // KEY=VALUE, as OpenTofu tells them
			overrides[i] = bc
			continue
		}
		file := path.Join(root, filepath.ToSlash(bc))
		if path.IsAbs(bc) || file == ".." || strings.HasPrefix(file, "../") {
			return nil, fmt.Errorf("%s: -backend-config %s is outside the repository", root, bc)
		}
		overrides[i] = filepath.Join(top, filepath.FromSlash(file))
	}
	in.NamesFrom = top // the same names (and hashes) whichever directory holds the tree
	if in.ProviderFunctions == nil {
		in.ProviderFunctions = noProviderFunctions
	}
	if err := confineModules(top, dir, in); err != nil {
		return nil, RepoPaths(err, top)
	}
	m, err := tfconfig.Load(dir, tfconfig.Installed(ctx, dir, in), in)
	if err != nil {
		return nil, RepoPaths(err, top)
	}
	cfg, _, err := tfconfig.ExpandPartial(m, in)
	if err != nil {
		return nil, RepoPaths(err, top)
	}
	if expand := cfg.Pending; expand != nil {
		cfg.Pending = func(ctx context.Context, known config.Known) (*config.Config, error) {
			whole, err := expand(ctx, known)
			if err != nil {
				return nil, RepoPaths(err, top)
			}
			return whole, nil
		}
	}
	ba, err := tfconfig.RootBackend(m, in, overrides)
	if err != nil {
		return nil, RepoPaths(err, top)
	}
	// The block's place by its repository path, as errors name it.
	ba.Pos.File = filepath.ToSlash(strings.TrimPrefix(ba.Pos.File, top+string(filepath.Separator)))
	return &Loaded{Root: root, Top: top, Dir: dir, Module: m, Config: cfg, Backend: ba}, nil
}

// RepoPaths names the files of the tree at top in err (diagnostics or
// text) by their repository paths.
func RepoPaths(err error, top string) error {
	prefix := top + string(filepath.Separator)
	var ds diag.Diagnostics
	if errors.As(err, &ds) {
		out := make(diag.Diagnostics, len(ds))
		for i, d := range ds {
			d.Pos.File = filepath.ToSlash(strings.TrimPrefix(d.Pos.File, prefix))
			d.Message = strings.ReplaceAll(d.Message, prefix, "")
			d.Source = strings.ReplaceAll(d.Source, prefix, "")
			out[i] = d
		}
		return out
	}
	return errors.New(strings.ReplaceAll(err.Error(), prefix, ""))
}

// KykuType is the type Kyku's model gives a resource of the state by its
// provider configuration (tfconfig.KykuType).
func (l *Loaded) KykuType(typ, provider string) string {
	return tfconfig.KykuType(l.Module, typ, provider)
}

// StateProvider is the provider configuration address a resource new to
// the root's state is recorded with, as OpenTofu records it.
func (l *Loaded) StateProvider(a tfstate.InstanceAddr) string {
	return tfconfig.StateProvider(l.Module, tfconfig.ModuleCalls(a.Module), a.Mode == tfstate.Data, a.Type, a.Name)
}
