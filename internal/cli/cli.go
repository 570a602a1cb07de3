package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kyku/action/internal/buildinfo"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/hostcreds"
	"github.com/kyku/action/internal/noun"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/tfprovider"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/gcs"
	"github.com/kyku/action/internal/suggest"
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
	// Version overrides what the binary records about its build (release
	// builds set it with -ldflags -X; see ReadVersion).
	Version Version
	// Interrupted, when not nil, is closed on the first interrupt (the
	// caller cancels ctx too): Run then prints the notice that running
	// changes finish and state is saved, through the live progress view
	// when one runs, so that its redraw does not erase it.
	Interrupted <-chan struct{}
	// Environ is the process environment the Terraform providers of a
	// configuration run with (their clouds' credentials, as Terraform
	// passes its own on); nil: none.
	Environ func() []string
	// ProviderStarted, when set, is called with the process ID of every
	// Terraform provider process started.
	ProviderStarted func(pid int)
	// TerraformLoaded, when set, is called as a command starts loading a
	// Terraform configuration: its providers are Terraform providers,
	// started once it is loaded.
	TerraformLoaded func()
	// Executing, when set, is the engine's Options.Executing: called as
	// an apply starts running its changes, and what it returns once they
	// have all ended (cliproc runs them on one P when they go to
	// Terraform providers).
	Executing func() (done func())
	// Keeper, when set, is the command of the journal keeper that
	// launches the Terraform providers and keeps what they answer to
	// creates, so that a killed apply loses none (kyku-engine sets it to
	// itself with tfplugin.KeeperArg); nil: none.
	Keeper []string
	// AWS opens the s3 and spaces backends and aws-kms keys
	// (workspace/awsstore); nil: a configuration that uses them is
	// refused, naming kyku-engine (the kyku executable does not link the
	// AWS SDK).
	AWS workspace.AWS
	// Google carries Application Default Credentials to the gcs backend
	// (golang.org/x/oauth2/google's DefaultClient); nil: a gcs backend on
	// a real bucket is refused, naming kyku-engine (the kyku executable
	// does not link the OAuth2 library; an emulator's opens).
	Google gcs.Credentials
	// VerifySignature checks what a provider registry signs
	// (tfinstall/pgpverify); nil: nothing is fetched from a registry,
	// naming kyku-engine (the kyku executable does not link OpenPGP).
	VerifySignature func(signed, sig []byte, armoredKeys []string) (badKey int, err error)
	// Policies loads the Rego policies of plan --policy (cli/clipolicy);
	// nil: --policy is refused, naming kyku-engine.
	Policies func(dir string) (PolicySet, error)
	// ModulesHTTP fetches modules for kyku init (registries, archives);
	// nil: a client with a 5 minute timeout.
	ModulesHTTP *http.Client
	// ProvidersHTTP fetches Terraform providers from their registries;
	// nil: a client with a 5 minute timeout.
	ProvidersHTTP *http.Client
	// ScryptCost overrides the cost N of the state passphrase's scrypt
	// (workspace.Settings.ScryptCost); 0: Kyku's default. Tests lower it.
	ScryptCost int

	// argsFrom names the environment variables that gave arguments
	// (TF_CLI_ARGS, TF_CLI_ARGS_<command>: envargs.go), for flag errors
	// to say where a flag came from. Set by Run.
	argsFrom []string
	creds    *credsCache // set by Run: registryCredentials
	notices  *notices    // set by Run
	// noColor: --no-color was given.
	noColor bool
	// functions are the providers started for their functions, stopped
	// when the command ends (set by Run: providerfuncs.go).
	functions *tfprovider.FunctionsStarted
	ctx       context.Context      // set by Run: the run's, for what loading reads
	secrets   *progress.SecretBook // set by Run
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
  init          install the configuration's modules and Terraform providers and write their lock file
                (--upgrade; also: providers lock)
  providers     lock | mirror DIR: download the providers into DIR, a mirror for
                KYKU_PLUGIN_MIRROR where their registries cannot be reached (--platform OS_ARCH)
  validate      check the configuration; report every error as file:line:col
                (every environment it declares; -e ENV only that one)
  plan          show what apply would change (--out saves it, --json for scripts,
                --format mermaid draws it, --policy DIR checks it against Rego policies,
                --target NAME limits it to NAME and what it depends on, --replace NAME
                replaces NAME although nothing forces it; a plan that destroys
                every resource because the configuration has none needs --allow-destroy-all)
  apply         apply the changes (asks for "yes"; --auto-approve; --target NAME; --replace NAME;
                --plan FILE applies a saved plan, without asking, if it verifies and planning it
                again against the current state gives the same changes; --allow-destroy-all as
                for plan)
  destroy       destroy everything in state
  refresh       read every resource and report drift (updates state)
  output        print outputs ([NAME] [--json | --flat | --raw])
  graph         print the dependency graph (--format dot|mermaid)
  show          print a saved plan ([PLANFILE] [--json]) or, without one, every object in state
  import        import NAME PROVIDER_ID: record an existing cloud object as NAME in state
  state         list [ADDRESS…] | mv FROM TO | rm NAME… | pull | push FILE [--force] | backups |
                restore KEY | rekey
  force-unlock  remove a lock left by a dead run (force-unlock TOKEN; asks for "yes"; --force)
  migrate       check DIR…: plan each Terraform root against its state where OpenTofu keeps
                it, reading only; exit 0 only when every one plans no changes
  schema        print the JSON Schema of kyku.yaml, for editors (kyku schema > kyku.schema.json)
  version       print kyku's version, commit and Go version (also --version)

Common flags: -c, --config PATH (file or directory of *.yaml, default kyku.yaml), -e, --env ENV,
--var NAME=VALUE (repeatable; also KYKU_VAR_NAME), --provider NAME, --parallelism N,
--lock-timeout DURATION, --state-dir DIR, --plugin-mirror DIR (also KYKU_PLUGIN_MIRROR). Local state (.kyku-state, or the backend's path) and the
sim's cloud (.kyku-state/sim) live next to the configuration, not in the working directory. A directory of .tf files keeps
its state where its backend block says (terraform.tfstate without one), as OpenTofu does; --backend-config FILE|KEY=VALUE
completes that block as tofu init -backend-config does.
Run "kyku <command> --help" for a command's flags.
`

// command is one kyku command: its name, its positional arguments as the
// help shows them, what it does, and its implementation.
type command struct {
	name, args, summary string
	run                 func(context.Context, *Env, []string) error
}

// commands lists kyku's commands (a function, so that nothing is built
// before a command runs).
func commands() []command {
	return []command{
		{"init", "", "Install the configuration's Terraform providers and write their lock file beside it (.kyku.lock.hcl; for a directory of .tf files, .terraform.lock.hcl, and its modules under .terraform/modules).", cmdInit},
		{"validate", "", "Check the configuration and report every error as file:line:col: for every environment it declares, or only -e ENV.", cmdValidate},
		{"plan", "", "Show what apply would change. Writes nothing (--out FILE saves the plan where you say).", cmdPlan},
		{"apply", "", "Apply the changes, after showing them and asking for \"yes\" (or exactly a saved plan with --plan FILE: saving it was the approval, nothing is asked).", cmdApply},
		{"destroy", "", "Destroy everything in state, in reverse dependency order, after asking for \"yes\".", cmdDestroy},
		{"refresh", "", "Read every resource and report drift; updates the state unless --report-only.", cmdRefresh},
		{"output", "[NAME]", "Print the configuration's outputs from state (sensitive ones masked), or one output, in clear, by NAME.", cmdOutput},
		{"graph", "", "Print the dependency graph with its levels.", cmdGraph},
		{"show", "[PLANFILE]", "Print a saved plan as kyku plan printed it (--json: as plan --json), or, without one, every object in state, as tofu show does.", cmdShow},
		{"import", "NAME PROVIDER_ID", "Record an object that exists in the cloud in state as NAME (a resource or instance of the configuration).", cmdImport},
		{"state", "list [ADDRESS…] | show NAME | mv FROM TO | rm NAME… | pull | push FILE | backups | restore KEY | rekey", "Read or repair the state: every change is backed up first; the cloud is untouched.", cmdState},
		{"force-unlock", "TOKEN", "Remove a lock left by a dead run (the token is in the lock message), after asking for \"yes\" (--force does not ask).", cmdForceUnlock},
		{"migrate", "check DIR…", "Plan each Terraform root (and workspace) against its state where OpenTofu keeps it, taking no lock and writing nothing, and print which plan no changes (exit 0 only when every one does, 2 when some plan changes, 1 when some fail).", cmdMigrate},
		{"providers", "lock | mirror DIR", "Write the lock file of the configuration's Terraform providers (as init does), or download them into DIR, a mirror for KYKU_PLUGIN_MIRROR (--platform OS_ARCH, repeatable).", cmdProviders},
		{"schema", "", "Print the JSON Schema (draft 2020-12) of kyku.yaml and of each file of a configuration directory, for editors: save it (kyku schema > kyku.schema.json) and name it in a \"# yaml-language-server: $schema=kyku.schema.json\" line or the editor's settings. Reads no configuration.", cmdSchema},
		{"version", "", "Print kyku's version, the commit it was built from and the Go version. Reads no configuration.", cmdVersion},
	}
}

func lookupCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{name: name}, false
}

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
	env.creds = &credsCache{}
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, usage)
		return exitError
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && args[0] == "help" {
			// kyku help plan is kyku plan --help.
			args = []string{args[1], "--help"}
			break
		}
		fmt.Fprint(env.Stdout, usage)
		return exitOK
	case "-v", "-version", "--version":
		args = append([]string{"version"}, args[1:]...)
	}
	cmd, ok := lookupCommand(args[0])
	if !ok {
		fmt.Fprintf(env.Stderr, "kyku: %s; run \"kyku --help\" for the list\n", unknownCommand(args[0]))
		return exitError
	}
	var err error
	args, env.argsFrom, err = envArgs(env.Getenv, args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "kyku: %v\n", err)
		return exitError
	}
	env.notices = &notices{stderr: env.Stderr}
	env.secrets = &progress.SecretBook{}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stdout := newClosedStdout(env.Stdout, cancel)
	env.Stdout = stdout
	stop := env.notices.watchInterrupt(env.Interrupted)
	ctx = env.notices.withNotices(ctx)
	env.ctx = ctx
	env.functions = &tfprovider.FunctionsStarted{}
	err = cmd.run(ctx, &env, args[1:])
	env.functions.Close()
	stop()
	var code exitCode
	switch {
	case stdout.broken():
		fmt.Fprintln(env.Stderr, closedStdoutNotice)
		return exitError
	case err == nil:
		return exitOK
	case errors.As(err, &code):
		return int(code)
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	}
	// What the engine or a provider says may quote a sensitive value.
	secrets := env.secrets.Known()
	var ds diag.Diagnostics
	if errors.As(err, &ds) {
		ds.Sort()
		withSources(ds)
		for _, d := range ds {
			fmt.Fprintln(env.Stderr, secrets.Scrub(d.String()))
		}
		fmt.Fprintf(env.Stderr, "kyku: %s\n", noun.Count(len(ds), "error"))
		return exitError
	}
	fmt.Fprintf(env.Stderr, "kyku: %s\n", secrets.Scrub(err.Error()))
	return exitError
}

// unknownCommand says what is wrong with the first argument: a typo of a
// command, or a flag given before the command.
func unknownCommand(arg string) string {
	if strings.HasPrefix(arg, "-") {
		return fmt.Sprintf("%s before the command: flags follow it (kyku plan %s …)", arg, arg)
	}
	if kyku, ok := terraformCommands()[arg]; ok {
		return fmt.Sprintf("unknown command %q (Terraform's %s: %s)", arg, arg, kyku)
	}
	names := make([]string, 0, 16)
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return fmt.Sprintf("unknown command %q%s", arg, suggest.DidYouMean(arg, names))
}

// terraformCommands say what Kyku has for Terraform commands it does not
// (built on first use: a command's start allocates nothing).
var terraformCommands = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"fmt":       "Kyku reads HCL as written and formats none; tofu fmt formats it",
		"console":   "kyku plan --json shows every value the plan knows",
		"workspace": "a workspace is -e NAME (or KYKU_ENV, TF_WORKSPACE); its state is made by its first apply",
		"taint":     "kyku apply --replace ADDRESS, which OpenTofu recommends over taint",
		"untaint":   "Kyku replaces an object OpenTofu marked tainted; to keep one, tofu untaint it",
		"get":       "kyku init installs the modules",
		"test":      "Kyku runs no .tftest.hcl files; tofu test does",
		"login":     "Kyku reads registry credentials where OpenTofu does (the CLI configuration file, TF_TOKEN_<host>)",
		"providers": "kyku providers lock and kyku providers mirror DIR",
	}
})

// exitCode is returned by a command to exit with a code and no message.
type exitCode int

func (c exitCode) Error() string { return "exit " + strconv.Itoa(int(c)) }

// common holds the flags shared by the commands that open a workspace.
type common struct {
	// targets are the plan's --target addresses (or a saved plan's):
	// complete leaves out what stays undecided when they name none of it.
	targets     []string
	config      string
	env         string
	provider    string
	parallelism positive
	lockTimeout time.Duration
	stateDir    string
	vars        varFlags
	mirror      string
	// sandbox runs Terraform providers sandboxed; sandboxFiles are the
	// files they may read then.
	sandbox      bool
	sandboxFiles listFlags
	flags        *flagSet // what register registered them on
	envFrom      string   // the saved plan env came from, when -e was not given
	tf           *terraformConfig
	// planTime is a Terraform configuration's plantimestamp(): when it was
	// first read for this plan, or the saved plan's time when applying
	// one; the plan is made at that time (PlanOptions.Timestamp).
	planTime time.Time
	// noPlan: the command makes no plan (kyku output), so plantimestamp()
	// is not known.
	noPlan bool
	// backendConfig are --backend-config's, in order (terraformstate.go).
	backendConfig listFlags
	// readAhead is the operation whose workspace the command opens after
	// loading a Terraform configuration ("": none, or not known): load
	// opens its backend early and reads the state ahead (terraform.go).
	readAhead string
	early     *earlyBackend
	// noFunctions: the command reads the configuration to install its
	// providers (kyku init): their functions are not asked for.
	noFunctions bool
	// validating: kyku validate, which reads a Terraform configuration
	// as tofu validate does (tfconfig.Inputs.Validating) unless given
	// variables.
	validating bool
}

func (c *common) register(fs *flagSet, env *Env) {
	c.flags = fs
	fs.StringVar(&c.config, "c", "kyku.yaml", "the configuration: a `PATH` to a file, or to a directory of *.yaml files or of Terraform's .tf files")
	fs.StringVar(&c.config, "config", "kyku.yaml", "same as -c")
	fs.StringVar(&c.env, "e", env.Getenv("KYKU_ENV"), "the environment `ENV` (workspace; also KYKU_ENV); state goes to state.ENV.json")
	fs.StringVar(&c.env, "env", env.Getenv("KYKU_ENV"), "same as -e")
	fs.StringVar(&c.provider, "provider", "", "the provider `NAME`, overriding the configuration's (sim, aws, hetzner)")
	c.parallelism = 10
	fs.Var(&c.parallelism, "parallelism", "at most `N` concurrent provider operations (at least 1)")
	fs.DurationVar(&c.lockTimeout, "lock-timeout", 30*time.Second, "how long to wait for a held state lock (e.g. 2m; 0: do not wait)")
	fs.StringVar(&c.stateDir, "state-dir", "", "the `DIR` for local state (default .kyku-state next to the configuration)")
	c.vars = newVarFlags()
	fs.Var(c.vars, "var", "set a variable: --var `NAME=VALUE` (repeatable; beats KYKU_VAR_<name> and the environment's values)")
	fs.Var(varFileFlag{c.vars.order}, "var-file", "read variables from the Terraform variable definitions `FILE` (.tfvars, .tfvars.json; repeatable; a directory of .tf files only)")
	fs.StringVar(&c.mirror, "plugin-mirror", env.Getenv("KYKU_PLUGIN_MIRROR"), "install Terraform providers only from the filesystem mirror `DIR`, unpacked or as kyku providers mirror writes it (also KYKU_PLUGIN_MIRROR)")
	fs.BoolVar(&c.sandbox, "sandbox", false, "run Terraform providers sandboxed (bubblewrap): their own user, files and processes, this environment, no other file; as root, no metadata address")
	fs.Var(&c.sandboxFiles, "sandbox-file", "a `FILE` a sandboxed provider may read, such as a credentials file (repeatable)")
	fs.Var(&c.backendConfig, "backend-config", backendConfigUsage)
	// Terraform's habits in CI scripts, taken as they are.
	fs.Bool("input", false, "taken for Terraform's -input=false: kyku never asks for a variable's value (a missing one is an error)")
	fs.Bool("compact-warnings", false, "taken for Terraform's -compact-warnings: kyku says each warning once, with its source line")
	fs.Bool("concise", false, "taken for OpenTofu's -concise: kyku's plan prints no refreshing lines; apply's progress lines are kept")
	fs.Bool("consolidate-warnings", true, "taken for OpenTofu's -consolidate-warnings: kyku says each warning once, with its source line")
	fs.Bool("consolidate-errors", false, "taken for OpenTofu's -consolidate-errors: kyku says each error once, with its source line")
}

// plugins is how the configuration's Terraform providers are installed
// and run: from the mirror when one is given (else their registries, into
// .kyku-state/providers), with the process's environment (their credentials),
// their logs on stderr when TF_LOG asks for them.
func (c *common) plugins(env *Env) (workspace.Plugins, error) {
	pl := workspace.Plugins{Verify: env.VerifySignature}
	mirror, flag := c.mirror, "--plugin-mirror"
	if mirror == "" {
		// The CLI configuration's provider_installation, as OpenTofu's
		// (a CI image's TF_CLI_CONFIG_FILE naming a filesystem mirror).
		in, err := hostcreds.ProviderInstallation(env.cliConfig())
		if err != nil {
			// Refused when a provider is installed: a configuration
			// without Terraform providers does not need it.
			pl.Refused = err
		}
		mirror, flag = in.Mirror, in.Where
	}
	if mirror != "" {
		m, err := filepath.Abs(mirror)
		if err != nil {
			return pl, fmt.Errorf("%s %s: %w", flag, mirror, err)
		}
		pl.Mirror = m
	}
	if env.Environ != nil {
		pl.Env = env.Environ()
	}
	pl.Credentials = env.registryCredentials()
	pl.HTTP = env.ProvidersHTTP
	if env.Getenv("TF_LOG") != "" {
		pl.Stderr = env.Stderr
	}
	if v := env.Getenv("KYKU_PROVIDER_RENEW"); v != "" {
		g, err := workspace.ParseRenewGrowth(v)
		if err != nil {
			return pl, err
		}
		pl.RenewGrowth = g
	}
	pl.OnStart = env.ProviderStarted
	pl.Notice = func(line string) { env.notices.say(line, false) }
	pl.Keeper = env.Keeper
	if err := c.confine(env, &pl); err != nil {
		return pl, err
	}
	return pl, nil
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
		Getenv: env.Getenv, BaseDir: base, AWS: env.AWS, Google: env.Google, ScryptCost: env.ScryptCost,
		AnswerDir: answerDir(env.Getenv),
	}
	if env.notices != nil {
		s.Notify = func(notice string) { env.notices.say(notice, false) }
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
	if s.Plugins, err = c.plugins(env); err != nil {
		return s, err
	}
	s.Engine.Parallelism = int(c.parallelism)
	s.Engine.Secrets = env.secrets // the engine and the providers feed what the CLI prints with
	s.Engine.Now = env.Now
	s.Engine.Version = buildinfo.EngineVersion(env.Version.Version, env.Version.Commit)
	s.Engine.Lock = lockInfo(env, op)
	s.Engine.Executing = env.Executing
	if s.Terraform, err = c.terraformState(); err != nil {
		return s, err
	}
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
	s, ok := c.takeEarly(op)
	if !ok {
		var err error
		if s, err = c.settings(env, op); err != nil {
			return nil, err
		}
	}
	s.Engine.Hook = hook
	return workspace.Open(ctx, cfg, s, env.Providers)
}

func colorOn(env *Env) bool {
	_, noColor := lookupEnv(env, "NO_COLOR")
	return env.StdoutIsTerminal && !noColor && !env.noColor
}

func lookupEnv(env *Env, name string) (string, bool) {
	v := env.Getenv(name)
	return v, v != ""
}
