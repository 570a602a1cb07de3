package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/workspace"
)

// Env is the world the CLI runs in.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// StdoutIsTerminal selects the redrawing progress view and colour.
	StdoutIsTerminal bool
	Providers        provider.Registry
	Now              func() time.Time
	Hostname         string
	PID              int
}

// exit codes
const (
	exitOK      = 0
	exitError   = 1
	exitChanges = 2
)

const usage = `kyku: infrastructure as code, reviewed like code

Usage: kyku <command> [flags]

Commands:
  validate      check the configuration; report every error as file:line:col
                (every environment it declares; -e ENV only that one)
  plan          show what apply would change (--out saves it, --json for scripts,
                --format mermaid draws it, --policy DIR checks it against Rego policies,
                --target NAME limits it to NAME and what it depends on; a plan that destroys
                every resource because the configuration has none needs --allow-destroy-all)
  apply         apply the changes (asks for "yes"; --auto-approve; --target NAME;
                --plan FILE applies a saved plan if it verifies and planning it again against
                the current state gives the same changes; --allow-destroy-all as for plan)
  destroy       destroy everything in state
  refresh       read every resource and report drift (updates state)
  output        print outputs ([name] [--json])
  graph         print the dependency graph (--format dot|mermaid)
  import        import NAME PROVIDER_ID: record an existing cloud object as NAME in state
  state         list | mv FROM TO | rm NAME… | pull | push FILE [--force] | backups |
                restore KEY | rekey
  force-unlock  remove a lock left by a dead run (force-unlock TOKEN)

Common flags: -c PATH (file or directory of *.yaml, default kyku.yaml), -e ENV,
--var NAME=VALUE (repeatable; also KYKU_VAR_NAME), --provider NAME, --parallelism N,
--lock-timeout DURATION, --state-dir DIR. Local state (.kyku, or the backend's path) and the
sim's cloud (.kyku/sim) live next to the configuration, not in the working directory.
Run "kyku <command> -h" for a command's flags.
`

// Run runs one kyku command and returns the process exit code.
func Run(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(env.Stdout, usage)
		if len(args) == 0 {
			return exitError
		}
		return exitOK
	}
	cmds := map[string]func(context.Context, *Env, []string) error{
		"validate": cmdValidate, "plan": cmdPlan, "apply": cmdApply, "destroy": cmdDestroy,
		"refresh": cmdRefresh, "output": cmdOutput, "graph": cmdGraph, "state": cmdState,
		"force-unlock": cmdForceUnlock, "import": cmdImport,
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(env.Stderr, "kyku: unknown command %q\n\n%s", args[0], usage)
		return exitError
	}
	err := cmd(ctx, &env, args[1:])
	var code exitCode
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &code):
		return int(code)
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	}
	var ds diag.Diagnostics
	if errors.As(err, &ds) {
		ds.Sort()
		for _, d := range ds {
			fmt.Fprintln(env.Stderr, d.String())
		}
		fmt.Fprintf(env.Stderr, "kyku: %d error(s)\n", len(ds))
		return exitError
	}
	fmt.Fprintf(env.Stderr, "kyku: %v\n", err)
	return exitError
}

// exitCode is returned by a command to exit with a code and no message.
type exitCode int

func (c exitCode) Error() string { return "exit " + strconv.Itoa(int(c)) }

// common holds the flags shared by the commands that open a workspace.
type common struct {
	config      string
	env         string
	provider    string
	parallelism int
	lockTimeout time.Duration
	stateDir    string
	vars        varFlags
}

func (c *common) register(fs *flag.FlagSet, env *Env) {
	fs.StringVar(&c.config, "c", "kyku.yaml", "configuration file or directory of *.yaml files")
	fs.StringVar(&c.config, "config", "kyku.yaml", "same as -c")
	fs.StringVar(&c.env, "e", env.Getenv("KYKU_ENV"), "environment (workspace); state goes to state.<env>.json")
	fs.StringVar(&c.env, "env", env.Getenv("KYKU_ENV"), "same as -e")
	fs.StringVar(&c.provider, "provider", "", "provider, overriding the config's (sim, aws, hetzner)")
	fs.IntVar(&c.parallelism, "parallelism", 10, "maximum concurrent provider operations")
	fs.DurationVar(&c.lockTimeout, "lock-timeout", 30*time.Second, "how long to wait for the state lock")
	fs.StringVar(&c.stateDir, "state-dir", "", "directory for local state (default .kyku next to the configuration)")
	c.vars = varFlags{}
	fs.Var(c.vars, "var", "set a variable: --var name=value (repeatable; beats KYKU_VAR_<name> and the environment's values)")
}

// parse parses flags that may be interleaved with positional arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func newFlags(name string, env *Env) *flag.FlagSet {
	fs := flag.NewFlagSet("kyku "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	return fs
}

// durationEnv reads a duration knob (tests shorten waits through these).
func durationEnv(env *Env, name string) (time.Duration, error) {
	s := env.Getenv(name)
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: %w", name, s, err)
	}
	return d, nil
}

func (c *common) settings(env *Env, op string) (workspace.Settings, error) {
	if err := c.checkEnv(); err != nil {
		return workspace.Settings{}, err
	}
	base, err := configDir(c.config)
	if err != nil {
		return workspace.Settings{}, err
	}
	s := workspace.Settings{
		Env: c.env, Provider: c.provider, LockTimeout: c.lockTimeout,
		Getenv: env.Getenv, BaseDir: base,
	}
	if c.stateDir != "" {
		// A flag's path is relative to the working directory.
		if s.StateDir, err = filepath.Abs(c.stateDir); err != nil {
			return s, fmt.Errorf("--state-dir %s: %w", c.stateDir, err)
		}
	}
	knobs := map[string]*time.Duration{
		"KYKU_RETRY_BASE": &s.Engine.RetryBase, "KYKU_DESTROY_BASE": &s.Engine.DestroyBase,
		"KYKU_VERIFY_INTERVAL": &s.Engine.VerifyInterval, "KYKU_LOCK_STALE_AFTER": &s.StaleAfter,
		"KYKU_LOCK_HEARTBEAT": &s.Heartbeat, "KYKU_LOCK_POLL": &s.PollInterval,
	}
	for name, dst := range knobs {
		if *dst, err = durationEnv(env, name); err != nil {
			return s, err
		}
	}
	if c.lockTimeout == 0 {
		s.LockTimeout = -1 // --lock-timeout 0: try once, do not wait
	}
	s.Engine.Parallelism = c.parallelism
	s.Engine.Now = env.Now
	s.Engine.Lock = lockInfo(env, op)
	return s, nil
}

// configDir is the directory the configuration at path is in (a file's
// directory, a directory itself), absolute: local state and the sim's cloud
// live next to the configuration, wherever kyku runs from.
func configDir(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("-c %s: %w", path, err)
	}
	if info, err := os.Stat(abs); err == nil && info.IsDir() {
		return abs, nil
	}
	return filepath.Dir(abs), nil
}

// lockInfo says who is running, for lock messages: user@host, and the
// GitHub run when there is one.
func lockInfo(env *Env, op string) statemgr.LockInfo {
	who := env.Getenv("USER")
	if u, err := user.Current(); err == nil && who == "" {
		who = u.Username
	}
	host := env.Hostname
	if host == "" {
		host, _ = os.Hostname()
	}
	pid := env.PID
	if pid == 0 {
		pid = os.Getpid()
	}
	info := statemgr.LockInfo{Operation: op, Who: who + "@" + host, Host: host, PID: pid, Actor: env.Getenv("GITHUB_ACTOR")}
	if srv, repo, run := env.Getenv("GITHUB_SERVER_URL"), env.Getenv("GITHUB_REPOSITORY"), env.Getenv("GITHUB_RUN_ID"); srv != "" && repo != "" && run != "" {
		info.RunURL = srv + "/" + repo + "/actions/runs/" + run
	}
	return info
}

// open builds the workspace for cfg; hook, when non-nil, receives apply
// progress.
func (c *common) open(ctx context.Context, env *Env, cfg *config.Config, op string, hook progress.Hook) (*workspace.Workspace, error) {
	s, err := c.settings(env, op)
	if err != nil {
		return nil, err
	}
	s.Engine.Hook = hook
	return workspace.Open(ctx, cfg, s, env.Providers)
}

func colorOn(env *Env) bool {
	_, noColor := lookupEnv(env, "NO_COLOR")
	return env.StdoutIsTerminal && !noColor
}

func lookupEnv(env *Env, name string) (string, bool) {
	v := env.Getenv(name)
	return v, v != ""
}
