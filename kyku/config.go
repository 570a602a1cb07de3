package kyku

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/envname"
)

// Config is a validated configuration: resources and outputs, with the
// provider and backend it names. A Config is not changed by the calls that
// use it and may be used again and concurrently.
type Config struct {
	c *config.Config
}

// ParseConfig validates YAML data (the kyku.yaml format) as one
// configuration file, with its variables' defaults (see ParseConfigFor for
// an environment's values); name is used in error positions. Bad input is
// a *ConfigError listing every problem found.
func ParseConfig(name string, data []byte) (*Config, error) {
	c, err := config.Parse([]config.File{{Name: name, Data: data}})
	if err != nil {
		return nil, publicError(err)
	}
	return &Config{c: c}, nil
}

// ConfigOptions choose the values of a configuration's variables, as the
// CLI's -e and --var do: Vars beat the environment's values
// (environments.<Env>.variables), which beat the defaults. The process
// environment (KYKU_VAR_<name>) is not read: pass its values in Vars.
type ConfigOptions struct {
	Env  string            // environment; "" takes the defaults only
	Vars map[string]string // name → value, as text (lists and maps in YAML flow or JSON form)
}

// ParseConfigFor is ParseConfig with the variables' values for one
// environment. A Config made for an environment is planned and applied
// only in that environment.
func ParseConfigFor(name string, data []byte, opts ConfigOptions) (*Config, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	c, err := config.ParseEnv([]config.File{{Name: name, Data: data}}, opts.inputs())
	if err != nil {
		return nil, publicError(err)
	}
	return &Config{c: c}, nil
}

// LoadConfigFor is LoadConfig with the variables' values for one
// environment.
func LoadConfigFor(path string, opts ConfigOptions) (*Config, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	c, err := config.LoadEnv(path, opts.inputs())
	if err != nil {
		return nil, publicError(err)
	}
	return &Config{c: c}, nil
}

// check refuses an environment name that could reach outside the state's
// files and keys.
func (o ConfigOptions) check() error {
	if err := envname.Check(o.Env); err != nil {
		return fmt.Errorf("kyku: ConfigOptions.Env: %w", err)
	}
	return nil
}

func (o ConfigOptions) inputs() config.Inputs {
	return config.Inputs{Environment: o.Env, Vars: o.Vars}
}

// Env is the environment whose values the configuration holds ("" for the
// defaults).
func (c *Config) Env() string { return c.c.Environment }

// checkEnv refuses to use a configuration made for one environment in
// another's state: its sizes and counts would land in the wrong estate.
func (c *Config) checkEnv(env string) error {
	if c == nil || c.c.Environment == "" || c.c.Environment == env {
		return nil
	}
	return fmt.Errorf("kyku: the configuration holds the values of environment %q, not %q: load it with ConfigOptions{Env: %q}", c.c.Environment, env, env)
}

// LoadConfig reads and validates the configuration at path: a YAML file,
// or a directory whose *.yaml and *.yml files are merged into one.
func LoadConfig(path string) (*Config, error) {
	c, err := config.Load(path)
	if err != nil {
		return nil, publicError(err)
	}
	return &Config{c: c}, nil
}

// Resources lists the names of the configured resources, sorted (without
// the auto-subnets a Vpc's distributeAcrossAzs adds at plan time).
func (c *Config) Resources() []string {
	out := make([]string, 0, len(c.c.Resources))
	for _, r := range c.c.Resources {
		if r.AutoFrom == "" {
			out = append(out, r.Name)
		}
	}
	return out
}

// ProviderName is the provider the configuration names ("sim" when none).
func (c *Config) ProviderName() string { return c.c.Provider.Name }

// ProviderSettings are the provider block's settings (e.g. region).
func (c *Config) ProviderSettings() map[string]string {
	out := make(map[string]string, len(c.c.Provider.Settings))
	for k, v := range c.c.Provider.Settings {
		out[k] = v
	}
	return out
}

// Backend is the backend the configuration names, or nil (local state).
func (c *Config) Backend() *Backend {
	b := c.c.Backend
	if b == nil {
		return nil
	}
	return &Backend{
		Type: b.Type, Path: b.Path, Bucket: b.Bucket, Prefix: b.Prefix, Region: b.Region,
		Endpoint: b.Endpoint, UsePathStyle: b.UsePathStyle, KMSKeyID: b.KMSKeyID, BackupRetention: b.BackupRetention,
	}
}

// working returns a copy for one engine call: the engine adds auto-subnets
// to the copy's resource list, never to c.
func (c *Config) working() *config.Config {
	if c == nil {
		return nil
	}
	return c.c.Clone()
}

// ConfigError is a configuration that does not validate (or a plan the
// configuration forbids, such as destroying a protected resource): every
// problem found, each at its position when it has one.
type ConfigError struct {
	Problems []Problem
}

// Problem is one problem with the configuration.
type Problem struct {
	File         string // empty when the problem has no position
	Line, Column int    // 1-based; 0 when unknown
	Message      string
}

func (p Problem) String() string {
	pos := p.File
	if pos != "" && p.Line > 0 {
		pos += fmt.Sprintf(":%d", p.Line)
		if p.Column > 0 {
			pos += fmt.Sprintf(":%d", p.Column)
		}
	}
	if pos == "" {
		return p.Message
	}
	return pos + ": " + p.Message
}

// Error lists the problems, one a line, as file:line:col: message.
func (e *ConfigError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// publicError turns the engine's diagnostics into a *ConfigError and its
// sentinels into this package's, and passes other errors through.
func publicError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, engine.ErrNotApproved):
		return ErrNotApproved
	case errors.Is(err, engine.ErrNotConfirmed):
		return ErrNotConfirmed
	}
	var ds diag.Diagnostics
	if !errors.As(err, &ds) {
		return err
	}
	ce := &ConfigError{Problems: make([]Problem, len(ds))}
	for i, d := range ds {
		ce.Problems[i] = Problem{File: d.Pos.File, Line: d.Pos.Line, Column: d.Pos.Col, Message: d.Message}
	}
	return ce
}
