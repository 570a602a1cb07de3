package review

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/permission"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/policy"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/statemgr"
)

// ErrNoTrustedConfig is wrapped by a Deps.Trusted error when the default
// branch has no Kyku configuration yet. A pull request's own backend may
// then be used to plan it (the front door decides), never to apply it:
// Apply refuses, saying so.
var ErrNoTrustedConfig = errors.New("the default branch has no kyku configuration")

// Workspace is an opened engine with its backend (see package workspace).
// Close, when set, stops what the engine's provider runs (Terraform
// providers' processes); the use cases call it when they are done.
type Workspace struct {
	Engine  *engine.Engine
	Backend statemgr.Backend
	Close   func() error
	// Complete makes a partial configuration (config.Config.Pending)
	// whole with this workspace's state and data sources before it is
	// planned, applied or refreshed; nil: Engine.Complete. A front door
	// sets it to hold the pull request's configuration to its rules at
	// every round (tfroots.GuardedComplete).
	Complete func(ctx context.Context, cfg *config.Config) (*config.Config, error)
}

// complete is cfg made whole for w.
func (w *Workspace) complete(ctx context.Context, cfg *config.Config) (*config.Config, error) {
	if w.Complete != nil {
		return w.Complete(ctx, cfg)
	}
	return w.Engine.Complete(ctx, cfg)
}

// close runs w.Close when there is one.
func (w *Workspace) close() {
	if w != nil && w.Close != nil {
		_ = w.Close()
	}
}

// Opener opens the engine and backend for a config and environment. The
// backend must come from the DEFAULT branch's config (trusted), never from
// a pull request's head: the front door decides which config it passes.
type Opener func(ctx context.Context, cfg *config.Config, env string) (*Workspace, error)

// Settings are a project's review rules (Action inputs or .kyku/config.yaml).
type Settings struct {
	Project         string // "" for a single-project repository
	Environment     string // "" allowed (state.json)
	RequireApproval bool   // RequiredApprovals approvals of the current head (see Apply)
	// Apply says what applies (default ApplyOnBoth): Comment refuses
	// `/kyku apply` when it is not a comment's to apply; the front doors
	// ask ApplyModeRefusal for a merge and the merge queue.
	Apply ApplyMode
	// RulesFrom names where these settings are written, for what Kyku
	// says about them ("`.kyku/config.yaml` on the default branch", "the
	// workflow's inputs"); "" names none.
	RulesFrom       string
	ApplyPermission permission.Level // minimum permission to /kyku apply (default write)
	// PlanPermission is the minimum permission to comment /kyku plan
	// (default write): a plan takes the state lock and calls the cloud.
	PlanPermission permission.Level
	// ApproverPermission is the minimum permission of a reviewer whose
	// approval counts (default write).
	ApproverPermission permission.Level
	// RequiredApprovals is how many approvals must count (default 1, at
	// most MaxRequiredApprovals).
	RequiredApprovals int
	CommentMode       string // plan comments: "sticky" (default), "new", "off"; apply replies are always posted
	DriftLabel        string // default "kyku-drift"
	// AllowForkPRs lets plans of pull requests from forks be made and
	// applied. Off by default (fail closed, as Atlantis' allow-fork-prs): a
	// fork's pull_request workflow gets a read-only token and no secrets,
	// and anyone can open one.
	AllowForkPRs bool
	// PolicyOwners may override a policy denial by approving the head
	// (an approval that counts): logins, and teams as "org/team-slug".
	PolicyOwners []string
	// PolicyTimeout bounds one policy evaluation (default
	// policy.DefaultTimeout).
	PolicyTimeout time.Duration
	// ShowUnchanged lists each unchanged resource in plan comments and
	// summaries (render.Meta.ShowUnchanged); by default one line counts
	// them.
	ShowUnchanged bool
	// Promotion orders environments: an apply to one of them is refused
	// until every earlier one has applied the same head commit
	// successfully (see Apply). Empty: no order.
	Promotion []string
}

// Deps is everything a use case needs.
type Deps struct {
	GitHub GitHub
	Open   Opener
	Now    func() time.Time
	// RunURL links comments and audit records to the workflow run or bot job.
	RunURL string
	// ArtifactURL, when known, is where the redacted plan.json can be read.
	ArtifactURL string
	// Mask registers secrets so the front door hides them from logs
	// (::add-mask:: in the Action); may be nil. It is only ever given
	// values from outside the configuration's files (config.OutsideValues)
	// and sensitive values the cloud answered with in a drift check, never
	// text a pull request's files chose: a mask hides that text in the
	// whole log.
	Mask func(secret string)
	// Source loads the project's config at a git ref (a PR's head SHA) —
	// the Action and the bot read it through the API (tarball), or from the
	// checkout when the ref is what is checked out. Used by Comment for
	// `/kyku plan`; a diag.Diagnostics error is shown on the PR as a failed
	// plan and returned wrapped (errors.As finds it).
	Source func(ctx context.Context, ref string) (*config.Config, error)
	// Trusted loads the project's config from the default branch, whose
	// backend and provider settings are trusted. Used by Comment (plan) and
	// by Apply/ApplyMerged when ApplyRequest.Trusted is nil; required there
	// (fail closed: a PR's own config never picks the backend).
	Trusted func(ctx context.Context) (*config.Config, error)
	// Log receives what is worth a warning but changes no outcome (a
	// reaction that could not be added); nil discards.
	Log *slog.Logger
	// Policies loads the policies that judge this event (see package
	// policy): the front door reads them from the default branch — as it
	// was BEFORE the merge when applying a merge, so that a pull request
	// never changes the rules that judge it. nil: no policy checks. An
	// empty set (no .kyku/policies/ there) is no policy check either.
	Policies func(ctx context.Context) (*policy.Set, error)
	// RuleChanges lists the files holding review rules that pull request
	// number changes (settings, policies, the workflow whose inputs are
	// the Action's rules): its plan comment says at the top that they
	// apply from the next pull request. nil: none are known.
	RuleChanges func(ctx context.Context, number int) ([]string, error)
	// MergeRules says where the review rules judging a merge (or its merge
	// queue's commit) were read; CheckMergeRules refuses the apply when
	// they would be ones the pull request brought, or when it was not
	// merged into the default branch. The front door reads the rules from
	// before the merge (the bot: at a merge commit's first parent, or at a
	// squash or rebase merge's commit; the Action: its inputs, from the
	// workflow at the merge, compared with the push's "before"). nil: no
	// check.
	MergeRules *MergeRules
}

// SavedPlanKey is the backend object key of a PR's saved plan for one head
// SHA: plans/<env>/pr-<number>-<sha>.json (env "default" when empty), under
// the project's name when there is one.
func SavedPlanKey(project, env string, number int, sha string) string {
	if env == "" {
		env = "default"
	}
	if project != "" {
		env = project + "/" + env
	}
	return "plans/" + env + "/pr-" + itoa(number) + "-" + sha + ".json"
}

// PlanRequest asks to plan a pull request's head.
type PlanRequest struct {
	Settings Settings
	Number   int // the pull request; 0 plans without saving or commenting
	HeadSHA  string
	Config   *config.Config // the PR head's config (what is being reviewed)
	// Trusted is the default branch's config, used to open the backend
	// (nil: Config is trusted, e.g. a push to the default branch).
	Trusted *config.Config
}

// PlanOutcome is what planning produced, for outputs and summaries.
type PlanOutcome struct {
	Plan       *plan.Plan
	Redacted   []byte // plan.json for the artifact: no sensitive value in clear
	Digest     string // ChangesDigest of the plan, shown in the comment
	SavedKey   string // backend key of the saved plan
	CommentURL string
	Summary    string // markdown for the job summary / check run
	// Policy is the policy check (nil: no policies); PolicyCheck turns it
	// into the check run kyku policy (<env>).
	Policy *render.PolicyReport
}

// ApplyRequest asks to apply a pull request's saved plan.
type ApplyRequest struct {
	Settings  Settings
	Number    int
	Commenter string // who asked (comment author), or the merger
	CommentID int64  // the /kyku comment, for reactions (0: none, e.g. on merge)
	OnMerge   bool   // triggered by the merge of the PR (push to the default branch)
	MergeSHA  string // the merge commit, on merge; the merge group's head commit in the queue
	// Queue: triggered by the merge queue (merge_group checks_requested);
	// the configuration planned is the one at MergeSHA, and it must be
	// the configuration reviewed at the pull request's head.
	Queue bool
	// Trusted is the default branch's config, used to open the backend
	// (nil: Deps.Trusted loads it).
	Trusted *config.Config
	// SeenHead is, for a comment, the pull request's head the commenter
	// saw (CommentEvent.SeenHead): the apply is refused when the head is
	// another by the time it runs. "" pins nothing.
	SeenHead string
	// CommentedAt is, for a comment, when GitHub says it was posted
	// (CommentEvent.CommentedAt): a head that reached GitHub after it is
	// refused (PushedAfterComment). Zero checks nothing.
	CommentedAt time.Time
	// AllowDestroyAll is the explicit word (/kyku apply
	// --allow-destroy-all) a plan that destroys every resource needs; a
	// merge or the merge queue never carries it (see destroyAllRefusal).
	AllowDestroyAll bool
}

// ApplyOutcome is what an apply did.
type ApplyOutcome struct {
	Number    int    // the pull request (0 when ApplyMerged found none)
	HeadSHA   string // the head commit whose saved plan was (to be) applied
	Approvers []string
	// NotCounted are the approvals that did not count, with why.
	NotCounted []NotCounted
	Applied    bool
	Refused    *Refusal // the requirement that failed, as told to the user (nil when applied)
	Result     *engine.Result
	Digest     string // ChangesDigest of the applied (or refused) plan
	AuditKey   string
	CommentURL string // the reply on the PR (refusal or result)
	// Policy is the policy check of the plan applied or refused (nil: no
	// policies, or the apply stopped before it).
	Policy *render.PolicyReport
	// PolicyOverriddenBy are the policy owners whose approval let a plan
	// the policies blocked be applied.
	PolicyOverriddenBy []string
}

// DriftRequest asks for a drift check of one environment.
type DriftRequest struct {
	Settings   Settings
	Config     *config.Config // the default branch's config
	WriteState bool
}

// DriftOutcome is what a drift check found.
type DriftOutcome struct {
	Drift    bool
	Result   *engine.RefreshResult
	IssueURL string
	Closed   bool // an open drift issue was closed because drift is gone
	// Fingerprint identifies what drifted (see DriftFingerprint).
	Fingerprint string
	// Notified: the drift is new or changed, so the issue was opened, or
	// updated with a comment saying what is new. False when the same drift
	// was found again (nothing was written).
	Notified bool
	// New lists what drifted that the open issue did not show
	// ("resource property", "resource (gone)").
	New []string
}

// AuditRecord is written at AuditKey (runs/<env>/<time>-pr<number>.json)
// on every apply that ran, failed ones included; refusals write none.
type AuditRecord struct {
	PR           int       `json:"pr"`
	Environment  string    `json:"environment"`
	Project      string    `json:"project,omitempty"`
	RequestedBy  string    `json:"requestedBy"`
	ApprovedBy   []string  `json:"approvedBy"`
	Trigger      Trigger   `json:"trigger"` // comment, merge or merge-queue
	HeadSHA      string    `json:"headSha"`
	MergeSHA     string    `json:"mergeSha,omitempty"`
	PlanDigest   string    `json:"planDigest"`
	SerialBefore int64     `json:"serialBefore"`
	SerialAfter  int64     `json:"serialAfter"`
	BackupKey    string    `json:"backupKey"`
	RunURL       string    `json:"runUrl"`
	Succeeded    int       `json:"succeeded"`
	Failed       int       `json:"failed"`
	Skipped      int       `json:"skipped"`
	StartedAt    time.Time `json:"startedAt"`
	FinishedAt   time.Time `json:"finishedAt"`
	// Policy is the policy check of the applied plan (absent without
	// policies), with the owners who overrode a denial.
	Policy *AuditPolicy `json:"policy,omitempty"`
}

// AuditPolicy is what an audit record says about the policy check.
type AuditPolicy struct {
	Ref          string   `json:"ref,omitempty"` // where the policies were read
	Files        []string `json:"files"`
	Denied       []string `json:"denied,omitempty"`
	Warnings     []string `json:"warnings,omitempty"`
	Error        string   `json:"error,omitempty"`
	OverriddenBy []string `json:"overriddenBy,omitempty"`
}

// CommentEvent is an issue_comment webhook, reduced to what the rules need.
type CommentEvent struct {
	Action      string // "created", "edited", "deleted": only created is acted on
	Number      int
	IsPR        bool // the issue is a pull request
	Body        string
	Author      string
	AuthorIsBot bool // user.type == "Bot" (the App's own comments included)
	CommentID   int64
	// SeenHead is the pull request's head when the command arrived (the
	// front door reads it as early as it can): /kyku apply applies that
	// commit's plan or nothing. "" pins nothing.
	SeenHead string
	// CommentedAt is the comment's created_at, GitHub's clock as the
	// webhook GitHub signed (the bot) or the event file GitHub wrote (the
	// Action) says: /kyku apply refuses a head GitHub held only after it,
	// in whatever order the events arrived. Zero checks nothing.
	CommentedAt time.Time
}

// CommentOutcome is what a comment led to.
type CommentOutcome struct {
	Ignored string   // why nothing was done ("" when acted on)
	Refused *Refusal // why a /kyku plan, or /kyku apply in another apply mode, was refused (one-line reply posted)
	Command string   // the canonical command, e.g. "/kyku apply -e prod"
	Plan    *PlanOutcome
	Apply   *ApplyOutcome
	Replied string // URL of the reply comment, if any
}

func itoa(n int) string { return strconv.Itoa(n) }
