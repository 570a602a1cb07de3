package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/envname"
	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/value"
	"github.com/kyku/action/internal/workspace"
)

// Terraform configurations. -c naming a directory of .tf, .tf.json, .tofu
// or .tofu.json files (or, by default, a working directory with such
// files and no kyku.yaml) is read as OpenTofu reads it (package
// tfconfig): its variables from --var, --var-file, terraform.tfvars,
// *.auto.tfvars and TF_VAR_<name>, terraform.workspace being -e (or the
// workspace OpenTofu would select: selectWorkspace).

// terraform reports whether the configuration is a Terraform one, and
// points -c at the working directory when it was left at kyku.yaml,
// which does not exist, beside .tf files.
func (c *common) terraform() bool {
	if tfconfig.IsConfigDir(c.config) {
		return true
	}
	if !flagGiven(c.flags, "c") && c.config == "kyku.yaml" && !fileExists(c.config) && tfconfig.IsConfigDir(".") {
		c.config = "."
		return true
	}
	return false
}

// terraformConfig is a Terraform configuration being expanded: its
// module tree and the inputs it is expanded with (its backend reads them).
type terraformConfig struct {
	module *tfconfig.Module
	inputs tfconfig.Inputs
}

// selectWorkspace takes the workspace OpenTofu would use for the root
// when neither -e nor KYKU_ENV (nor a saved plan) names one: TF_WORKSPACE,
// else the one tofu workspace select recorded (.terraform/environment, in
// TF_DATA_DIR when set); "default" is Kyku's default environment. A
// pipeline that selects its workspace so plans and applies that
// workspace's state, never the default one's.
func (c *common) selectWorkspace(env *Env) error {
	if c.env != "" || c.envFrom != "" {
		return nil
	}
	name, from := env.Getenv("TF_WORKSPACE"), "TF_WORKSPACE"
	if name == "" {
		dataDir := cmp.Or(env.Getenv("TF_DATA_DIR"), ".terraform")
		if !filepath.IsAbs(dataDir) {
			dataDir = filepath.Join(c.config, dataDir)
		}
		from = filepath.Join(dataDir, "environment")
		data, err := os.ReadFile(from)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("read the selected workspace: %w", err)
		}
		name = strings.TrimSpace(string(data))
	}
	if name == "" || name == "default" {
		return nil
	}
	if err := envname.Check(name); err != nil {
		return fmt.Errorf("workspace %q (from %s): %w", name, from, err)
	}
	c.env = name
	return nil
}

// loadTerraform reads and expands the Terraform configuration in -c, as
// far as it can before anything is read (see complete).
func (c *common) loadTerraform(env *Env) (*config.Config, error) {
	if env.TerraformLoaded != nil {
		env.TerraformLoaded()
	}
	if c.planTime.IsZero() && !c.noPlan {
		c.planTime = env.Now().UTC()
	}
	in := c.terraformInputs(env)
	m, err := tfconfig.Load(c.config, tfconfig.Installed(env.ctx, c.config, in), in)
	if err != nil {
		return nil, err
	}
	if !c.noFunctions {
		in.ProviderFunctions = c.providerFunctions(env)
	}
	// kyku validate without --var or --var-file checks the configuration
	// for every value, as tofu validate does (which takes neither);
	// given some, with them.
	in.Validating = c.validating && len(*c.vars.order) == 0
	c.tf = &terraformConfig{module: m, inputs: in}
	c.readStateAhead(env)
	cfg, _, err := tfconfig.ExpandPartial(m, in)
	if err != nil {
		c.tf, c.early = nil, nil
		return nil, err
	}
	env.secrets.Learn(cfg, nil)
	return cfg, nil
}

// terraformInputs are what the Terraform configuration in -c is read and
// expanded with besides its files: --var and --var-file, TF_VAR_name,
// the workspace, the clock.
func (c *common) terraformInputs(env *Env) tfconfig.Inputs {
	return tfconfig.Inputs{Vars: *c.vars.order, Getenv: env.Getenv, Workspace: c.env, Now: env.Now, PlanTimestamp: c.planTime}
}

// complete expands a Terraform configuration whose count or for_each
// read values not known before anything was read (config.Config.Pending)
// again, with what the state holds and the data sources it can read now,
// as OpenTofu reads them at plan. Any other configuration is returned as
// it is.
func (c *common) complete(ctx context.Context, env *Env, ws *workspace.Workspace, cfg *config.Config) (*config.Config, error) {
	if cfg.Pending == nil {
		return cfg, nil
	}
	whole, err := ws.Engine.Complete(ctx, cfg)
	if err != nil {
		// A plan --target'ing none of what stays undecided plans
		// without it, as OpenTofu's targeting never evaluates it: what
		// its "cannot be determined until apply" advises.
		if whole == nil || len(whole.Undecided) == 0 || len(c.targets) == 0 || targetsAny(c.targets, whole.Undecided) {
			return nil, err
		}
		env.notices.say("kyku: warning: --target leaves out "+strings.Join(whole.Undecided, ", ")+", whose count or for_each is not known until apply", false)
	}
	env.secrets.Learn(whole, nil)
	return whole, nil
}

// targetsAny reports whether a target address names one of addrs (a
// resource or a module call), an instance of one, something inside one,
// or a module holding one.
func targetsAny(targets, addrs []string) bool {
	for _, t := range targets {
		for _, a := range addrs {
			if value.Within(t, a) || value.Within(a, t) {
				return true
			}
		}
	}
	return false
}

// noVarFiles refuses --var-file for a Kyku configuration: its variables
// come from --var, KYKU_VAR_<name> and its environments.
func (c *common) noVarFiles() error {
	for _, a := range *c.vars.order {
		if a.File != "" {
			return fmt.Errorf("--var-file %s: variable definitions files are read for a directory of .tf files; %s is a Kyku configuration (give its variables with --var or KYKU_VAR_<name>)", a.File, c.config)
		}
	}
	return nil
}

// earlyBackend is a Terraform configuration's backend opened as soon as
// its files were parsed, its state read ahead while the configuration
// expands (a plan of 50,000 resources spends about as long on either, each
// on one core): s are the settings it was opened with (TerraformBackend
// set), which open takes for the operation op.
type earlyBackend struct {
	op string
	s  workspace.Settings
}

// readStateAhead opens the backend of the operation c.readAhead names,
// when there is one, and begins reading its state. Whatever fails here is
// left for open to say in its place, after the configuration's own errors.
func (c *common) readStateAhead(env *Env) {
	c.early = nil
	if c.readAhead == "" {
		return
	}
	s, err := c.settings(env, c.readAhead)
	if err != nil || s.Terraform == nil {
		return
	}
	if s.TerraformBackend, err = workspace.OpenTerraformBackend(env.ctx, s.Terraform, s); err != nil {
		return
	}
	s.TerraformBackend.ReadAhead(env.ctx)
	c.early = &earlyBackend{op: c.readAhead, s: s}
}

// takeEarly is the settings, with its backend opened early, that
// readStateAhead made for op; false when it made none.
func (c *common) takeEarly(op string) (workspace.Settings, bool) {
	e := c.early
	c.early = nil
	if e == nil || e.op != op {
		return workspace.Settings{}, false
	}
	return e.s, true
}
