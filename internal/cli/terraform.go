package cli

import (
	"fmt"
	"path/filepath"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/tfconfig"
)

// Terraform configurations. -c naming a directory of .tf, .tf.json, .tofu
// or .tofu.json files (or, by default, a working directory with such
// files and no kyku.yaml) is read as OpenTofu reads it (package
// tfconfig): its variables from --var, --var-file, terraform.tfvars,
// *.auto.tfvars and TF_VAR_<name>, terraform.workspace being -e.

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

// loadTerraform reads and expands the Terraform configuration in -c.
func (c *common) loadTerraform(env *Env) (*config.Config, error) {
	m, err := tfconfig.Load(c.config, nil)
	if err != nil {
		return nil, err
	}
	cwd, err := filepath.Abs(".")
	if err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	cfg, err := tfconfig.Expand(m, tfconfig.Inputs{Vars: *c.vars.order, Getenv: env.Getenv, Workspace: c.env, Cwd: cwd})
	if err != nil {
		return nil, err
	}
	env.secrets.Learn(cfg, nil)
	return cfg, nil
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
