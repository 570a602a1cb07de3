package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/envname"
	"github.com/kyku/action/internal/tfconfig"
)

// varFlags collects repeated --var name=value flags: by name, and with
// --var-file in the order given (a Terraform configuration's later one
// wins).
type varFlags struct {
	values map[string]string
	order  *[]tfconfig.VarArg
}

func newVarFlags() varFlags {
	return varFlags{values: map[string]string{}, order: &[]tfconfig.VarArg{}}
}

func (v varFlags) String() string { return "" }

func (v varFlags) Set(s string) error {
	name, val, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want --var name=value, got %q", s)
	}
	if _, dup := v.values[name]; dup {
		return fmt.Errorf("--var %s given twice", name)
	}
	v.values[name] = val
	*v.order = append(*v.order, tfconfig.VarArg{Name: name, Value: val})
	return nil
}

// varFileFlag is --var-file FILE: a Terraform variable definitions file.
type varFileFlag struct{ order *[]tfconfig.VarArg }

func (v varFileFlag) String() string { return "" }

func (v varFileFlag) Set(s string) error {
	*v.order = append(*v.order, tfconfig.VarArg{File: s})
	return nil
}

// positive is a whole-number flag of at least 1 (--parallelism): 0 or
// less is refused, not quietly taken as the default.
type positive int

func (p *positive) String() string { return strconv.Itoa(int(*p)) }

func (p *positive) Set(s string) error {
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return errors.New("not a whole number")
	case n < 1:
		return errors.New("must be at least 1")
	}
	*p = positive(n)
	return nil
}

// listFlags collects a repeated flag (--target).
type listFlags []string

func (l *listFlags) String() string { return strings.Join(*l, ",") }

func (l *listFlags) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// inputs are what the configuration is expanded with: -e, --var and
// KYKU_VAR_<name>.
func (c *common) inputs(env *Env) config.Inputs {
	return config.Inputs{Environment: c.env, Vars: c.vars.values, Getenv: env.Getenv}
}

// load reads and expands the configuration for -e with --var and
// KYKU_VAR_<name>; a Terraform configuration's with --var, --var-file and
// TF_VAR_<name>.
func (c *common) load(env *Env) (*config.Config, error) {
	terraform := c.terraform()
	if terraform {
		if err := c.selectWorkspace(env); err != nil {
			return nil, err
		}
	}
	if err := c.checkEnv(); err != nil {
		return nil, err
	}
	if terraform {
		return c.loadTerraform(env)
	}
	if err := c.noVarFiles(); err != nil {
		return nil, err
	}
	files, err := config.ReadFiles(c.config)
	if err != nil {
		return nil, err
	}
	if err := c.checkDeclared(files); err != nil {
		return nil, err
	}
	cfg, err := config.ParseEnv(files, c.inputs(env))
	env.secrets.Learn(cfg, nil)
	return cfg, err
}

// checkDeclared refuses an environment when the configuration declares
// none: its state (state.ENV.json) would be a second estate of everything,
// planned from scratch beside the default one. A configuration that
// declares environments refuses one it does not name itself.
func (c *common) checkDeclared(files []config.File) error {
	if c.env == "" || len(config.DeclaredEnvironments(files)) > 0 {
		return nil
	}
	given, without := "-e "+c.env, "leave out -e"
	switch {
	case flagGiven(c.flags, "e"):
	case c.envFrom != "":
		given, without = c.envFrom+" (planned for environment "+c.env+")", "plan again without -e"
	default:
		given, without = "KYKU_ENV="+c.env, "unset KYKU_ENV"
	}
	return fmt.Errorf("%s: %s declares no environments (there is only the default one): declare %s under environments: there, or %s",
		given, c.config, c.env, without)
}

// checkEnv refuses an environment name that could reach outside the state
// directory or a backend's keys (package envname).
func (c *common) checkEnv() error {
	if err := envname.Check(c.env); err != nil {
		return fmt.Errorf("-e (or KYKU_ENV): %w", err)
	}
	return nil
}
