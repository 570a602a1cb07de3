package action

import (
	"cmp"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	githubactions "github.com/sethvargo/go-githubactions"

	"github.com/kyku/action/internal/envname"
	"github.com/kyku/action/internal/permission"
	"github.com/kyku/action/internal/review"
)

// Command is what the Action was asked to do (input `command`).
type Command int

// The commands; Auto picks one from the event.
const (
	Auto Command = iota
	Plan
	Apply
	Refresh
)

// String is the input's spelling.
func (c Command) String() string {
	switch c {
	case Auto:
		return "auto"
	case Plan:
		return "plan"
	case Apply:
		return "apply"
	case Refresh:
		return "refresh"
	}
	return "Command(" + strconv.Itoa(int(c)) + ")"
}

func parseCommand(s string) (Command, bool) {
	for _, c := range []Command{Auto, Plan, Apply, Refresh} {
		if strings.EqualFold(s, c.String()) {
			return c, true
		}
	}
	return Auto, false
}

// Inputs are the Action's inputs (action.yml), validated.
type Inputs struct {
	Command     Command
	Config      string // file or directory of *.yaml, relative to WorkingDirectory
	Environment string
	Provider    string // overrides the config's provider when set
	Parallelism int
	Token       string
	// Login is the account Token writes as (input github-login); empty:
	// found from the token itself.
	Login              string
	RequireApproval    bool
	RequiredApprovals  int              // approvals that must count (1–10)
	ApproverPermission permission.Level // a reviewer's minimum permission for the approval to count
	ApplyPermission    permission.Level // minimum permission to /kyku apply
	PlanPermission     permission.Level // minimum permission to /kyku plan
	Comment            string           // sticky|new|off
	RefreshWritesState bool
	FailOnDrift        bool
	// ShowUnchanged lists each unchanged resource in the plan comment
	// and job summary (input show-unchanged).
	ShowUnchanged    bool
	WorkingDirectory string // relative to GITHUB_WORKSPACE
	// Apply says what applies: both (a /kyku apply comment and the merge,
	// the default), comment, merge, or merge-queue (the merge queue's
	// merge_group check applies; the push of the merge does not).
	Apply review.ApplyMode
	// PolicyOwners may override a policy denial by approving (logins and
	// org/team slugs).
	PolicyOwners []string
	// Promotion orders environments (an apply waits for the earlier ones).
	Promotion []string
	// Vars are the configuration's variable values (input vars: one
	// name=value per line), the strongest source, as kyku's --var.
	Vars map[string]string
	// PullRequest is the pull request a workflow_dispatch is for (input
	// pull-request, 0: none): the bot's execution: actions dispatches.
	PullRequest int
	// RequestedBy is who asked for a dispatched command (input
	// requested-by); believed only from Dispatcher.
	RequestedBy string
	// HeadSHA is the pull request's head a dispatched /kyku apply was
	// asked on (input head-sha; the bot passes its input sha): the apply
	// is refused when the head is another by the time it runs. "": none.
	HeadSHA string
	// Dispatcher is the account (the bot App's "<slug>[bot]") whose
	// dispatches may name who asked (input dispatcher).
	Dispatcher string
	// PluginMirror is an unpacked filesystem mirror Terraform providers
	// are installed from (input plugin-mirror; relative to the checkout;
	// "": their registries, into the cache actions/cache keeps).
	PluginMirror string
	// LockTimeout is how long a run waits for the state lock another run
	// holds (input lock-timeout; 0: the backend's default, 30s).
	LockTimeout time.Duration
	// ProviderSandbox says when Terraform providers run sandboxed (input
	// provider-sandbox): pull-requests (the default: whenever the
	// configuration may be a pull request's), always, or off.
	ProviderSandbox string
	// ProviderFiles are the files a sandboxed provider may read (input
	// provider-files: paths, relative to the checkout or absolute).
	ProviderFiles []string
	// LocalState says whether a configuration whose state is local may
	// run (input local-state: refuse, the default, or allow).
	LocalState LocalState
	// TerraformRoots: the Terraform roots a pull request touches are
	// planned and applied too (input terraform-roots: changed, the
	// default; off: kyku.yaml only). See roots.go.
	TerraformRoots bool
	// NewRoots lets a pull request add a Terraform root (input
	// terraform-new-roots: allow; refuse by default).
	NewRoots bool
	// BackendConfig are the -backend-config of every Terraform root
	// (input backend-config: one FILE or KEY=VALUE per line).
	BackendConfig []string
}

// applyMode is input apply's mode (oneOf checked the name).
func applyMode(s string) review.ApplyMode {
	m, _ := review.ParseApplyMode(s)
	return m
}

// lines are an input's non-empty lines, trimmed.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// list splits a comma- or space-separated input.
func list(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' })
}

// ConfigPath is the configuration's path relative to the repository root
// (the checkout), slash-separated.
func (in Inputs) ConfigPath() string {
	return path.Clean(path.Join(in.WorkingDirectory, in.Config))
}

// readInputs reads and validates the inputs; every problem is reported.
func readInputs(a *githubactions.Action) (Inputs, []string) {
	var problems []string
	get := func(name, def string) string {
		if v := a.GetInput(name); v != "" {
			return v
		}
		return def
	}
	boolean := func(name string, def bool) bool {
		v := get(name, strconv.FormatBool(def))
		b, err := strconv.ParseBool(v)
		if err != nil {
			problems = append(problems, fmt.Sprintf("input %s: %q is not true or false", name, v))
		}
		return b
	}
	oneOf := func(name, def string, allowed ...string) string {
		v := strings.ToLower(get(name, def))
		for _, a := range allowed {
			if v == a {
				return v
			}
		}
		problems = append(problems, fmt.Sprintf("input %s: %q is not one of %s", name, v, strings.Join(allowed, ", ")))
		return def
	}
	level := func(name string) permission.Level {
		l, _ := permission.Required(oneOf(name, permission.Write.String(), permission.Names()...))
		return l
	}
	in := Inputs{
		Config:             get("config", "kyku.yaml"),
		Environment:        get("environment", ""),
		Provider:           get("provider", ""),
		Token:              get("github-token", ""),
		Login:              strings.TrimSpace(get("github-login", "")),
		RequireApproval:    boolean("require-approval", true),
		ApplyPermission:    level("apply-permission"),
		PlanPermission:     level("plan-permission"),
		ApproverPermission: level("approver-permission"),
		Comment:            oneOf("comment", "sticky", "sticky", "new", "off"),
		RefreshWritesState: boolean("refresh-writes-state", false),
		FailOnDrift:        boolean("fail-on-drift", false),
		ShowUnchanged:      boolean("show-unchanged", false),
		WorkingDirectory:   get("working-directory", "."),
		Apply:              applyMode(oneOf("apply", review.ApplyOnBoth.String(), "both", "comment", "merge", "merge-queue")),
		PolicyOwners:       list(get("policy-owners", "")),
		Promotion:          list(get("promotion", "")),
		PluginMirror:       strings.TrimSpace(get("plugin-mirror", "")),
		ProviderSandbox:    oneOf("provider-sandbox", "pull-requests", "pull-requests", "always", "off"),
		ProviderFiles:      lines(get("provider-files", "")),
	}
	if oneOf("local-state", "refuse", "refuse", "allow") == "allow" {
		in.LocalState = AllowLocalState
	}
	in.TerraformRoots = oneOf("terraform-roots", "changed", "changed", "off") == "changed"
	in.NewRoots = oneOf("terraform-new-roots", "refuse", "refuse", "allow") == "allow"
	in.BackendConfig = lines(get("backend-config", ""))
	cmd := get("command", "auto")
	c, ok := parseCommand(cmd)
	if !ok {
		problems = append(problems, fmt.Sprintf("input command: %q is not one of auto, plan, apply, refresh", cmd))
	}
	in.Command = c
	par := get("parallelism", "10")
	n, err := strconv.Atoi(par)
	if err != nil || n < 1 {
		problems = append(problems, fmt.Sprintf("input parallelism: %q is not a positive number", par))
	}
	in.Parallelism = n
	ra := get("required-approvals", "1")
	if n, err := strconv.Atoi(ra); err != nil || n < 1 || n > review.MaxRequiredApprovals {
		problems = append(problems, fmt.Sprintf("input required-approvals: %q is not a number from 1 to %d", ra, review.MaxRequiredApprovals))
	} else {
		in.RequiredApprovals = n
	}
	// An environment name becomes part of state file and key names, so
	// "../x" must not pass (package envname: the one rule everywhere).
	if err := envname.Check(in.Environment); err != nil {
		problems = append(problems, "input environment: "+err.Error())
	}
	// OpenTofu would plan TF_WORKSPACE's workspace; the Action plans the
	// one its environment input names (its artifacts and comments are
	// named after it): a job setting TF_WORKSPACE to another is refused
	// rather than planning the wrong workspace's state.
	if ws := a.Getenv("TF_WORKSPACE"); in.TerraformRoots && ws != "" && ws != cmp.Or(in.Environment, "default") {
		problems = append(problems, fmt.Sprintf("TF_WORKSPACE is %q but input environment is %q: the Action plans the workspace its environment input names; set environment: %s (or unset TF_WORKSPACE)", ws, in.Environment, ws))
	}
	for _, e := range in.Promotion {
		if err := envname.Check(e); err != nil || e == "" {
			problems = append(problems, fmt.Sprintf("input promotion: %q is not an environment name (%s)", e, envname.Rule))
		}
	}
	if l := in.Login; l != "" && !loginRE().MatchString(l) {
		problems = append(problems, fmt.Sprintf("input github-login: %q is not a GitHub login (such as my-app[bot])", l))
	}
	if pr := strings.TrimSpace(get("pull-request", "")); pr != "" {
		if n, err := strconv.Atoi(pr); err != nil || n < 0 {
			problems = append(problems, fmt.Sprintf("input pull-request: %q is not a pull request number", pr))
		} else {
			in.PullRequest = n
		}
	}
	if lt := strings.TrimSpace(get("lock-timeout", "")); lt != "" {
		if d, err := time.ParseDuration(lt); err != nil || d <= 0 {
			problems = append(problems, fmt.Sprintf("input lock-timeout: %q is not a duration such as 30s or 20m", lt))
		} else {
			in.LockTimeout = d
		}
	}
	in.HeadSHA = strings.ToLower(strings.TrimSpace(get("head-sha", "")))
	if h := in.HeadSHA; h != "" && !shaRE().MatchString(h) {
		problems = append(problems, fmt.Sprintf("input head-sha: %q is not a commit SHA (40 hexadecimal digits)", h))
	}
	in.RequestedBy = strings.TrimSpace(get("requested-by", ""))
	in.Dispatcher = strings.TrimSpace(get("dispatcher", ""))
	for name, l := range map[string]string{"requested-by": in.RequestedBy, "dispatcher": in.Dispatcher} {
		if l != "" && !loginRE().MatchString(l) {
			problems = append(problems, fmt.Sprintf("input %s: %q is not a GitHub login (such as my-app[bot])", name, l))
		}
	}
	var bad []string
	in.Vars, bad = parseVars(get("vars", ""))
	problems = append(problems, bad...)
	if p := in.ConfigPath(); path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") {
		problems = append(problems, fmt.Sprintf("inputs working-directory and config: %q is outside the repository", p))
	}
	return in, problems
}

// loginRE is a GitHub login, a bot's "<slug>[bot]" included.
var loginRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$`)
})

// shaRE is a commit SHA as GitHub gives it (SHA-1).
var shaRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{40}$`) })

// varNameRE is a configuration variable's name.
var varNameRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
})

// parseVars reads input vars: one name=value per line; blank lines and
// lines starting with # are skipped. A value is never quoted in a problem
// (it may be a secret).
func parseVars(s string) (map[string]string, []string) {
	var problems []string
	vars := map[string]string{}
	for i, line := range strings.Split(s, "\n") {
		line = strings.TrimRight(line, "\r")
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		name, val, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		switch {
		case !ok || !varNameRE().MatchString(name):
			problems = append(problems, fmt.Sprintf("input vars: line %d is not name=value", i+1))
			continue
		case hasKey(vars, name):
			problems = append(problems, fmt.Sprintf("input vars: %s is given twice", name))
			continue
		}
		vars[name] = val
	}
	if len(vars) == 0 {
		return nil, problems
	}
	return vars, problems
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}
