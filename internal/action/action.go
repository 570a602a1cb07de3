package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	gh "github.com/google/go-github/v88/github"
	githubactions "github.com/sethvargo/go-githubactions"
	"golang.org/x/oauth2/google"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/hostcreds"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/tfprovider"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/workspace"
	"github.com/kyku/action/internal/workspace/awsstore"
)

// Env is the world the Action runs in: the runner's environment variables
// (inputs as INPUT_*, GITHUB_*), the log, the clock and the providers this
// binary carries. Nothing else is read from the process.
type Env struct {
	Getenv func(string) string
	// Environ lists the step's environment (os.Environ): every KYKU_VAR_*
	// and TF_VAR_* (a Terraform root's variables)
	// value in it is registered as a log mask before anything runs. nil:
	// none.
	Environ   func() []string
	Stdout    io.Writer // the step's log (workflow commands go here)
	Now       func() time.Time
	Providers provider.Registry
	// GitHub builds the REST client for GITHUB_API_URL authenticated with
	// the token.
	GitHub func(ctx context.Context, apiURL, token string) (*gh.Client, error)
	// Rand is the engine's randomness (deploy prefix, lineage); nil:
	// crypto/rand. Tests make it deterministic.
	Rand io.Reader
	// Version is Kyku's version and commit (buildinfo.EngineVersion),
	// recorded as the provider version of Kyku's own types: a plan after
	// an upgrade reads again the objects of those types, and only after
	// one (engine.Options.Version).
	Version string
}

// Exit codes of Run.
const (
	ExitOK   = 0 // done, or rightly did nothing (a fork, a refused /kyku apply)
	ExitFail = 1 // an error, a failed apply, a refused apply on merge, drift with fail-on-drift
)

// Run handles the event the runner delivered and returns the exit code.
func Run(ctx context.Context, env Env) int {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.Stdout == nil {
		env.Stdout = io.Discard
	}
	if env.GitHub == nil {
		env.GitHub = github.NewTokenClient
	}
	log := &lockedWriter{w: env.Stdout}
	a := githubactions.New(githubactions.WithGetenv(env.Getenv), githubactions.WithWriter(log))
	in, problems := readInputs(a)
	if in.Token != "" {
		a.AddMask(in.Token)
	}
	r := &run{env: env, a: a, in: in, trees: &rootTrees{tops: map[string]string{}, loaded: map[[2]string]rootLoad{}}}
	defer r.trees.remove()
	defer r.functions.Close()
	r.maskGiven()
	if len(problems) > 0 {
		for _, p := range problems {
			a.Errorf("%s", p)
		}
		r.summary = summaryFailed("the inputs are invalid", strings.Join(problems, "\n"))
		r.finish()
		return ExitFail
	}
	code := r.handle(ctx)
	r.finish()
	return code
}

// run is one Run's working state.
type run struct {
	env     Env
	a       *githubactions.Action
	in      Inputs
	ghctx   *githubactions.GitHubContext
	ev      *event
	repo    *github.Repo
	src     sources
	deps    review.Deps
	out     outputs
	summary string
	// functions are the providers started for a root's functions.
	functions tfprovider.FunctionsStarted
	masked    map[string]bool // values registered with ::add-mask::

	secrets progress.SecretBook // scrubbed from the log and the summary (learn)

	trees *rootTrees // the Terraform roots' trees written for this run (roots.go)

	credsOnce sync.Once
	creds     *hostcreds.Tokens // registryCredentials, read once per run
	// reporting is the project whose outcome is being reported ("": the
	// only one, or kyku.yaml's): its plan.json goes in a directory of its
	// own (projects.go).
	reporting string
}

func (r *run) settings() review.Settings {
	return review.Settings{
		Environment: r.in.Environment, RequireApproval: r.in.RequireApproval, RequiredApprovals: r.in.RequiredApprovals,
		ApproverPermission: r.in.ApproverPermission, ApplyPermission: r.in.ApplyPermission, PlanPermission: r.in.PlanPermission,
		CommentMode: r.in.Comment, DriftLabel: "kyku-drift", Apply: r.in.Apply, RulesFrom: "the workflow's inputs",
		PolicyOwners: r.in.PolicyOwners, Promotion: r.in.Promotion, ShowUnchanged: r.in.ShowUnchanged,
	}
}

// handle sets up the GitHub client and workspace and dispatches the event.
func (r *run) handle(ctx context.Context) int {
	ghctx, err := r.a.Context()
	if err != nil {
		return r.fail(fmt.Errorf("read the github context: %w", err))
	}
	r.ghctx = ghctx
	if r.ev, err = readEvent(ghctx.EventPath); err != nil {
		return r.fail(err)
	}
	owner, name := ghctx.Repo()
	if owner == "" || name == "" {
		return r.fail(errors.New("GITHUB_REPOSITORY is not set (is this running in GitHub Actions?)"))
	}
	if sk, ok := r.cannotRun(); ok {
		return r.skip(sk)
	}
	if r.in.Token == "" {
		return r.fail(errors.New("input github-token is empty: pass ${{ github.token }} or a token that can write pull requests and issues"))
	}
	client, err := r.env.GitHub(ctx, ghctx.APIURL, r.in.Token)
	if err != nil {
		return r.fail(fmt.Errorf("create the github client: %w", err))
	}
	r.repo = github.New(client, owner, name)
	if r.in.Login != "" {
		// Only this account's comments are Kyku's. The token's own answer,
		// when it gives one, must agree (a wrong name would make another
		// account's comments Kyku's); otherwise the first comment Kyku
		// creates shows who it writes as. Without the input, the token
		// tells (github.Repo.Self): github-actions[bot] for GITHUB_TOKEN,
		// "<slug>[bot]" for an App's installation token.
		if viewer, err := r.repo.Viewer(ctx); err == nil && !strings.EqualFold(viewer, r.in.Login) {
			return r.fail(fmt.Errorf("input github-login is %s, but github-token writes as %s: Kyku would take %s's comments for its own; fix github-login or leave it empty", r.in.Login, viewer, r.in.Login))
		}
		r.repo.SetSelf(r.in.Login)
	}
	root := r.env.Getenv("GITHUB_WORKSPACE")
	if root == "" {
		root = "."
	}
	r.src = sources{root: root, path: r.in.ConfigPath(), repo: r.repo, cache: &treeCache{},
		inputs: config.Inputs{Environment: r.in.Environment, Vars: r.in.Vars, Getenv: r.env.Getenv}, trustRef: r.trustRef()}
	r.deps = review.Deps{
		GitHub: r.repo, Open: r.open, Now: r.env.Now, RunURL: r.runURL(), ArtifactURL: r.runURL(),
		Mask: r.mask, Source: r.configAt, Trusted: r.checkoutConfig,
	}
	if ghctx.EventName != "push" && !r.checkoutIsDefault() {
		// On pull_request the checkout is the pull request's code, and a
		// comment-triggered workflow may well check out the pull request's
		// head too: the trusted config (its backend) comes from the default
		// branch through the API, never from the checkout.
		r.deps.Trusted = r.defaultBranchConfig
	}
	r.deps.Policies = r.policies
	r.deps.RuleChanges = r.ruleChanges
	r.deps.MergeRules = r.mergeRules()
	// Runs that share no concurrency group (a merge's apply shares none)
	// wait for each other on the state lock: said once per wait.
	ctx = statemgr.WithLockWaiting(ctx, func(h statemgr.LockInfo, timeout time.Duration) {
		r.a.Infof("kyku: the state lock is held (%s by %s %s); waiting up to %s (input lock-timeout)", h.Operation, h.Who, h.RunURL, timeout)
	})
	return r.dispatch(ctx)
}

// cannotRun says why this run must not touch anything (ok): a pull
// request from a fork or from Dependabot runs with a read-only token and
// no secrets.
func (r *run) cannotRun() (sk skipped, ok bool) {
	pr := r.ev.PullRequest
	if !strings.HasPrefix(r.ghctx.EventName, "pull_request") || pr == nil {
		return sk, false
	}
	if pr.fromFork() {
		head := ""
		if pr.Head.Repo != nil {
			head = pr.Head.Repo.FullName
		}
		return forkSkip(pr.Number, head), true
	}
	if r.ghctx.Actor == "dependabot[bot]" {
		return dependabotSkip(pr.Number), true
	}
	return sk, false
}

// eventHandlers are the events the Action acts on; on any other, it plans
// the checkout with command: plan and otherwise says why nothing ran. Every
// one has a payload fixture in testdata/github-events (a test checks).
var eventHandlers = sync.OnceValue(func() map[string]func(r *run, ctx context.Context, cmd Command) int {
	return map[string]func(r *run, ctx context.Context, cmd Command) int{
		"pull_request":        (*run).pullRequest,
		"pull_request_target": (*run).pullRequest,
		"push":                (*run).push,
		"issue_comment":       func(r *run, ctx context.Context, _ Command) int { return r.comment(ctx) },
		"merge_group":         (*run).mergeGroup,
		"schedule":            (*run).scheduled,
		"workflow_dispatch":   (*run).scheduled,
	}
})

// checkoutIsDefault reports whether the checkout is the default branch as
// such (schedule, and a workflow_dispatch for no pull request), so that the
// trusted configuration, the policies and the sensitive declarations may be
// read from it. A dispatch for a pull request reads them through the API,
// as a comment does: its workflow may well check out the pull request.
func (r *run) checkoutIsDefault() bool {
	switch r.ghctx.EventName {
	case "schedule":
		return true
	case "workflow_dispatch":
		return r.in.PullRequest == 0
	}
	return false
}

// scheduled answers schedule and workflow_dispatch: a drift check, or a
// plan of the checkout with command: plan; a dispatch for a pull request
// (the bot's, with execution: actions) is that pull request's command.
func (r *run) scheduled(ctx context.Context, cmd Command) int {
	if r.ghctx.EventName == "workflow_dispatch" && r.in.PullRequest > 0 {
		return r.dispatched(ctx, cmd)
	}
	switch cmd {
	case Plan:
		return r.planCheckout(ctx)
	case Apply:
		return r.fail(fmt.Errorf("command apply needs a pull request: on %s, use command refresh or plan", r.ghctx.EventName))
	}
	return r.drift(ctx)
}

// dispatch turns the event into one review use case.
func (r *run) dispatch(ctx context.Context) int {
	event, cmd := r.ghctx.EventName, r.in.Command
	what := event
	if r.ev.Action != "" {
		what += " " + r.ev.Action
	}
	r.a.Infof("kyku: %s (command %s, environment %s, config %s)", what, cmd, envName(r.in.Environment), r.src.path)
	if err := r.localStateRefusal(ctx); err != nil {
		return r.fail(err)
	}
	if cmd == Refresh {
		return r.drift(ctx)
	}
	if handle, ok := eventHandlers()[event]; ok {
		return handle(r, ctx, cmd)
	}
	switch cmd {
	case Plan:
		return r.planCheckout(ctx)
	case Apply:
		return r.fail(fmt.Errorf("command apply needs a pull request, a /kyku apply comment or a push to the default branch, not a %s event", event))
	}
	return r.skip(eventSkip(event))
}

func (r *run) defaultBranchConfig(ctx context.Context) (*config.Config, error) {
	cfg, err := r.configAt(ctx, r.defaultBranch())
	if errors.Is(err, errNoConfig) {
		return nil, fmt.Errorf("load the default branch's configuration: %w: %w", review.ErrNoTrustedConfig, err)
	}
	if IsLocalState(err) {
		return nil, err // says where already
	}
	if err != nil {
		return nil, fmt.Errorf("load the default branch's configuration (its backend is the trusted one): %w", err)
	}
	return cfg, nil
}

// open opens the engine and backend for a config and environment. Local
// paths are relative to the configuration's directory in the checkout, as
// for the CLI (they were relative to the checkout's root before: state
// found only there is refused, saying how to move it).
func (r *run) open(ctx context.Context, cfg *config.Config, env string) (*review.Workspace, error) {
	root := r.src.root
	plugins, err := r.plugins(ctx, cfg)
	if err != nil {
		return nil, err
	}
	ws, err := workspace.Open(ctx, cfg, workspace.Settings{
		Env: env, Provider: r.in.Provider, Getenv: r.env.Getenv, AWS: awsstore.Store{}, Google: google.DefaultClient,
		BaseDir: filepath.Join(root, filepath.FromSlash(r.src.dir(cfg))), FormerBaseDir: root,
		Engine: engine.Options{
			Parallelism: r.in.Parallelism, Now: r.env.Now, Rand: r.env.Rand, Secrets: &r.secrets, Version: r.env.Version,
			Lock: statemgr.LockInfo{Who: "github-actions@" + r.ghctx.Repository, Actor: r.ghctx.Actor, RunURL: r.runURL()},
		},
		Plugins:     plugins,
		LockTimeout: r.in.LockTimeout,
		Notify:      func(notice string) { r.a.Noticef("%s", notice) },
	}, r.env.Providers)
	if err != nil {
		return nil, err
	}
	return &review.Workspace{Engine: ws.Engine, Backend: ws.Backend, Close: ws.Close}, nil
}

// mask registers a secret with the runner so logs show *** instead
// (once per value).
func (r *run) mask(secret string) {
	if strings.TrimSpace(secret) == "" || r.masked[secret] {
		return
	}
	if r.masked == nil {
		r.masked = map[string]bool{}
	}
	r.masked[secret] = true
	r.a.AddMask(secret)
}

// maskGiven registers, before anything runs, every value given to the
// configuration from outside its files — input vars, KYKU_VAR_* and (for
// Terraform roots) TF_VAR_* of the
// step's environment — where secrets come from, and every registry token
// (TF_TOKEN_*), whatever a configuration
// declares about them: each value, and each element of a list or map
// given as text. Values shorter than 3 characters are not masked (as
// config.OutsideValues: "::add-mask::1" would hide every 1 of the log).
func (r *run) maskGiven() {
	var given []string
	for _, name := range slices.Sorted(maps.Keys(r.in.Vars)) {
		given = append(given, r.in.Vars[name])
	}
	if r.env.Environ != nil {
		for _, kv := range r.env.Environ() {
			if k, v, ok := strings.Cut(kv, "="); ok && (strings.HasPrefix(k, "KYKU_VAR_") || strings.HasPrefix(k, "TF_VAR_") || strings.HasPrefix(k, "TF_TOKEN_")) {
				given = append(given, v)
			}
		}
	}
	for _, v := range given {
		for _, x := range config.GivenTexts(v) {
			r.mask(x)
		}
	}
}

func (r *run) runURL() string {
	c := r.ghctx
	if c.ServerURL == "" || c.Repository == "" || c.RunID == 0 {
		return ""
	}
	return fmt.Sprintf("%s/%s/actions/runs/%d", strings.TrimSuffix(c.ServerURL, "/"), c.Repository, c.RunID)
}

// skip ends a run that rightly did nothing: the log and the summary say why.
func (r *run) skip(sk skipped) int {
	reason := r.known().Scrub(sk.reason)
	r.a.Noticef("%s: %s", sk.title, reason)
	r.summary = summarySkipped(sk.title, reason)
	return ExitOK
}

// lockedWriter serialises writes to the step log.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
