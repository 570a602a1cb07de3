package bot

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/command"
)

// payload is the part of a webhook the bot reads.
type payload struct {
	Action       string `json:"action"`
	Installation *struct {
		ID int64 `json:"id"`
	} `json:"installation"`
	Repository struct {
		ID            int64       `json:"id"`
		CreatedAt     webhookTime `json:"created_at"`
		Name          string      `json:"name"`
		DefaultBranch string      `json:"default_branch"`
		Owner         struct {
			Login string `json:"login"`
		} `json:"owner"`
	} `json:"repository"`
	PullRequest *struct {
		Number         int    `json:"number"`
		Merged         bool   `json:"merged"`
		MergeCommitSHA string `json:"merge_commit_sha"`
		Head           struct {
			SHA  string `json:"sha"`
			Repo *struct {
				FullName string `json:"full_name"`
			} `json:"repo"`
		} `json:"head"`
		Base     prBase `json:"base"`
		MergedBy *user  `json:"merged_by"`
	} `json:"pull_request"`
	Issue *struct {
		Number      int             `json:"number"`
		PullRequest json.RawMessage `json:"pull_request"`
	} `json:"issue"`
	Comment *struct {
		ID        int64       `json:"id"`
		Body      string      `json:"body"`
		User      user        `json:"user"`
		CreatedAt webhookTime `json:"created_at"`
	} `json:"comment"`
	Sender user `json:"sender"`
	// ClientPayload is a repository_dispatch's; Kyku reads project and
	// environment from it.
	ClientPayload *struct {
		Project     string `json:"project"`
		Environment string `json:"environment"`
	} `json:"client_payload"`
}

// prBase is a pull request's base: the branch it merges into, and that
// branch's repository.
type prBase struct {
	Ref  string `json:"ref"`
	SHA  string `json:"sha"`
	Repo *struct {
		FullName string `json:"full_name"`
	} `json:"repo"`
}

type user struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

// webhookTime is a payload's timestamp: RFC 3339 text, or Unix seconds
// (push payloads give a repository's created_at so).
type webhookTime struct{ time.Time }

func (t *webhookTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if n, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		t.Time = time.Unix(n, 0).UTC()
		return nil
	}
	return json.Unmarshal(b, &t.Time)
}

// event is a webhook reduced to what the jobs need.
type event struct {
	installation int64
	// repoID is the repository's numeric ID, which its namespace is keyed
	// by (a name can be renamed, or deleted and registered again);
	// created is when GitHub created it.
	repoID        int64
	created       time.Time
	owner, repo   string
	defaultBranch string
	number        int
	headSHA       string
	mergeSHA      string
	// rulesRef is where a merge's review rules are read: the merge
	// commit's first parent, or for a squash or rebase merge the merge
	// commit itself (set by routeMerge, see mergerules.go; never the
	// payload's base.sha, which may be older than the commit the merge
	// lands on). parentRef is the merge commit's first parent; linear says
	// it has no other (a squash or a rebase merge).
	rulesRef  string
	parentRef string
	linear    bool
	// baseSHA is the payload's pull_request.base.sha: a commit of the
	// default branch (maybe older than the one the merge lands on).
	baseSHA string
	merger  string
	// fork is set for a pull request whose head is another repository (or
	// a deleted one); headRepo names it.
	fork     bool
	headRepo string
	comment  commentEvent
}

type commentEvent struct {
	id     int64
	body   string
	author string
	cmd    command.Command
	// seenHead is, for /kyku apply, the pull request's head when the
	// comment was routed (seenHead): the commit its commenter saw.
	seenHead string
	// created is the comment's created_at, GitHub's clock in a payload
	// GitHub signed (review.CommentEvent.CommentedAt).
	created time.Time
}

func (e event) fullName() string { return e.owner + "/" + e.repo }

// routes are the webhook events the router acts on, each with the actions it
// acts on (nil: the event has none). A pull request's "closed" becomes a
// job only when it was merged. Every route has a payload fixture in
// testdata/github-events (a test checks).
var routes = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"ping":                nil,
		"pull_request":        {"opened", "synchronize", "reopened", "ready_for_review", "closed"},
		"issue_comment":       {"created"},
		"repository_dispatch": {DriftEventType},
	}
})

// route decides, from the payload alone (no API call), whether a delivery
// becomes a job. ignored says why not.
func (rt *router) route(name string, body []byte) (job queue.Job, ignored string, err error) {
	if name == "workflow_run" {
		// A hint that a dispatched run moved: its watcher looks now. What
		// the run became is read from the API, never from this payload.
		var p struct {
			WorkflowRun struct {
				DisplayTitle string `json:"display_title"`
			} `json:"workflow_run"`
		}
		if err := json.Unmarshal(body, &p); err != nil {
			return job, "", fmt.Errorf("decode workflow_run payload: %w", err)
		}
		return job, fmt.Sprintf("workflow_run: %d dispatched runs looked at again", rt.watch.Nudge(p.WorkflowRun.DisplayTitle)), nil
	}
	actions, routed := routes()[name]
	switch {
	case !routed:
		return job, "event " + name + " is not handled", nil
	case name == "ping":
		return job, "ping", nil
	}
	var p payload
	if err := json.Unmarshal(body, &p); err != nil {
		return job, "", fmt.Errorf("decode %s payload: %w", name, err)
	}
	if p.Installation == nil || p.Installation.ID == 0 {
		return job, "no installation in the payload", nil
	}
	ev := event{
		installation: p.Installation.ID, owner: p.Repository.Owner.Login, repo: p.Repository.Name,
		defaultBranch: p.Repository.DefaultBranch, repoID: p.Repository.ID, created: p.Repository.CreatedAt.Time,
	}
	if ev.owner == "" || ev.repo == "" || ev.defaultBranch == "" {
		return job, "", fmt.Errorf("decode %s payload: no repository", name)
	}
	if ev.repoID <= 0 {
		return job, "", fmt.Errorf("decode %s payload: no repository id (its namespace is keyed by it)", name)
	}
	if actions != nil && !slices.Contains(actions, p.Action) {
		return job, name + " " + p.Action + " is not handled (only " + strings.Join(actions, ", ") + ")", nil
	}
	attrs := []slog.Attr{
		slogString("repo", ev.fullName()), slog.Int64("installation", ev.installation),
	}
	if name == "repository_dispatch" {
		f := driftFilter{onDemand: true}
		if cp := p.ClientPayload; cp != nil {
			f.project, f.env = cp.Project, cp.Environment
		}
		return rt.driftRouteJob("repository_dispatch", ev, f), "", nil
	}
	if name == "pull_request" {
		pr := p.PullRequest
		if pr == nil {
			return job, "", fmt.Errorf("decode pull_request payload: no pull_request")
		}
		ev.number, ev.headSHA = pr.Number, pr.Head.SHA
		if pr.Head.Repo != nil {
			ev.headRepo = pr.Head.Repo.FullName
		}
		ev.fork = !strings.EqualFold(ev.headRepo, ev.fullName())
		attrs = append(attrs, slog.Int("pr", ev.number), slogString("action", p.Action))
		if p.Action != "closed" {
			return rt.routeJob("pull_request", ev, attrs, rt.routePlan), "", nil
		}
		if !pr.Merged {
			return job, "pull_request closed without a merge", nil
		}
		if why := mergedElsewhere(ev, pr.Base); why != "" {
			return job, why, nil
		}
		ev.mergeSHA, ev.baseSHA = pr.MergeCommitSHA, pr.Base.SHA
		ev.merger = p.Sender.Login
		if pr.MergedBy != nil && pr.MergedBy.Login != "" {
			ev.merger = pr.MergedBy.Login
		}
		return rt.routeJob("merge", ev, attrs, rt.routeMerge), "", nil
	}
	// issue_comment (created: edits and deletions are not read)
	if p.Issue == nil || p.Comment == nil {
		return job, "", fmt.Errorf("decode issue_comment payload: no issue or comment")
	}
	if len(p.Issue.PullRequest) == 0 || string(p.Issue.PullRequest) == "null" {
		return job, "comment on an issue, not a pull request", nil
	}
	if rt.isBot(p.Comment.User) {
		return job, "comment by a bot", nil
	}
	cmd, ok := command.Parse(p.Comment.Body)
	if !ok {
		return job, "no /kyku command", nil
	}
	ev.number = p.Issue.Number
	ev.comment = commentEvent{id: p.Comment.ID, body: p.Comment.Body, author: p.Comment.User.Login, cmd: cmd, created: p.Comment.CreatedAt.Time}
	attrs = append(attrs, slog.Int("pr", ev.number), slogString("command", cmd.String()), slogString("author", ev.comment.author))
	return rt.routeJob("comment", ev, attrs, rt.routeComment), "", nil
}

// isBot: the App's own comments and any other bot's are ignored.
func (rt *router) isBot(u user) bool {
	if strings.EqualFold(u.Type, "Bot") || strings.HasSuffix(u.Login, "[bot]") {
		return true
	}
	return rt.cfg.AppSlug != "" && strings.EqualFold(u.Login, rt.cfg.AppSlug+"[bot]")
}

// prKey serialises the routing of one pull request's events, so the jobs
// they fan out to are queued in delivery order.
func prKey(ev event) string {
	return "pr:" + strings.ToLower(ev.fullName()) + "#" + strconv.Itoa(ev.number)
}

func slogString(k, v string) slog.Attr { return slog.String(k, v) }
