package bot_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/review"
)

// driftHarness is a harness whose drift schedule fires when the test
// sends on tick.
func driftHarness(t *testing.T, o harnessOpts) (*harness, chan time.Time) {
	t.Helper()
	tick := make(chan time.Time)
	o.driftInterval = time.Hour
	o.after = func(time.Duration) <-chan time.Time { return tick }
	return newHarness(t, o), tick
}

// round fires the schedule once and waits for the round's jobs to finish.
func (h *harness) round(tick chan time.Time) {
	h.t.Helper()
	before := h.rounds()
	select {
	case tick <- time.Now():
	case <-time.After(10 * time.Second):
		h.t.Fatal("the drift schedule is not waiting")
	}
	deadline := time.Now().Add(10 * time.Second)
	for h.rounds() == before {
		if time.Now().After(deadline) {
			h.t.Fatal("the drift round never finished queueing")
		}
		time.Sleep(2 * time.Millisecond)
	}
	h.settle()
}

// rounds counts finished drift rounds, whatever their result.
func (h *harness) rounds() float64 {
	var n float64
	for k, v := range h.metrics() {
		if strings.HasPrefix(k, "kyku_bot_drift_rounds_total") {
			n += v
		}
	}
	return n
}

// applyDefaultBranch applies the default branch's config, as a merged PR would.
func (h *harness) applyDefaultBranch() {
	h.t.Helper()
	ctx := h.t.Context()
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(configV1)}})
	if err != nil {
		h.t.Fatal(err)
	}
	ws, err := h.openRepo(ctx, cfg, "")
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := ws.Engine.Apply(ctx, cfg, engine.ApplyOptions{AutoApprove: true}, nil); err != nil {
		h.t.Fatal(err)
	}
}

// editVm changes the one Vm in the sim behind Kyku's back.
func (h *harness) editVm(edit func(props map[string]any)) {
	h.t.Helper()
	files, err := filepath.Glob(filepath.Join(h.cloudDir(), "Vm", "*.json"))
	if err != nil || len(files) != 1 {
		h.t.Fatalf("want one Vm in the sim, got %v (%v)", files, err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		h.t.Fatal(err)
	}
	var o map[string]any
	if err := json.Unmarshal(data, &o); err != nil {
		h.t.Fatal(err)
	}
	edit(o["properties"].(map[string]any))
	if data, err = json.Marshal(o); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(files[0], data, 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) stateFile() []byte {
	h.t.Helper()
	data, err := os.ReadFile(filepath.Join(h.stateDir, namespace, "state.json"))
	if err != nil {
		h.t.Fatal(err)
	}
	return data
}

type driftIssue struct {
	Number        int
	State, Title  string
	Labels        []string
	DriftedSize   bool
	ResolvedNotes int
}

func (h *harness) driftIssues() []driftIssue {
	var out []driftIssue
	for _, is := range h.gh.Issues(repoName) {
		resolved := 0
		for _, c := range h.gh.Comments(repoName, is.Number) {
			if c.User == "kyku[bot]" {
				resolved++
			}
		}
		out = append(out, driftIssue{
			Number: is.Number, State: is.State, Title: is.Title, Labels: is.Labels,
			DriftedSize: strings.Contains(is.Body, "size"), ResolvedNotes: resolved,
		})
	}
	return out
}

// TestScheduledDriftRound: after an apply, a change behind Kyku's back
// opens one kyku-drift issue on the next round; the next round updates the
// same issue; once the change is undone, the issue is closed with a comment.
// The state is never written (report only), and /metrics counts the jobs.
func TestScheduledDriftRound(t *testing.T) {
	h, tick := driftHarness(t, harnessOpts{})
	h.applyDefaultBranch()
	state := h.stateFile()

	h.round(tick)
	if got := h.driftIssues(); len(got) != 0 {
		t.Fatalf("no drift yet, but issues %+v", got)
	}

	h.editVm(func(p map[string]any) { p["size"] = "xlarge" })
	h.round(tick)
	got := h.driftIssues()
	if len(got) != 1 {
		t.Fatalf("issues after drift = %+v, want one", got)
	}
	number, title := got[0].Number, got[0].Title
	want := []driftIssue{{Number: number, State: "open", Title: title, Labels: []string{"kyku-drift"}, DriftedSize: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("drift issue (-want +got):\n%s", diff)
	}

	h.round(tick)
	if diff := cmp.Diff(want, h.driftIssues()); diff != "" {
		t.Errorf("second round: issues (-want +got):\n%s", diff)
	}
	if n := h.gh.CountRequests("PATCH", "/issues/"+strconv.Itoa(number)); n != 0 {
		t.Errorf("%d edits of the drift issue, want none (the same drift says nothing)", n)
	}

	h.editVm(func(p map[string]any) { delete(p, "size") })
	h.round(tick)
	want[0].State, want[0].ResolvedNotes = "closed", 1
	if diff := cmp.Diff(want, h.driftIssues()); diff != "" {
		t.Errorf("drift gone: issues (-want +got):\n%s", diff)
	}

	if !slices.Equal(state, h.stateFile()) {
		t.Error("a report-only drift check wrote the state")
	}
	m := h.metrics()
	for name, want := range map[string]float64{
		`kyku_bot_drift_rounds_total{result="ok"}`:                    4,
		`kyku_bot_jobs_total{kind="drift",outcome="clean"}`:           1,
		`kyku_bot_jobs_total{kind="drift",outcome="drift"}`:           2,
		`kyku_bot_jobs_total{kind="drift",outcome="resolved"}`:        1,
		`kyku_bot_jobs_total{kind="drift-schedule",outcome="routed"}`: 4,
	} {
		if m[name] != want {
			t.Errorf("%s = %v, want %v", name, m[name], want)
		}
	}
	if n := h.gh.CountRequests("GET", "/app/installations"); n != 4 {
		t.Errorf("%d installation listings, want one per round", n)
	}
	if n := h.gh.CountRequests("POST", "/app/installations/1/access_tokens"); n != 1 {
		t.Errorf("%d token exchanges, want 1 (cached)", n)
	}
}

// TestDriftNeverOverlapsAPlanOfTheEnvironment: a drift check waits while
// a plan of the same project/environment holds its state, and runs after
// it: by default (the pull requests' jobs of a state with leases run at
// once; the check waits for its turn on the state) and with
// concurrent-applies: false (queued on the environment's key).
func TestDriftNeverOverlapsAPlanOfTheEnvironment(t *testing.T) {
	for name, settings := range map[string]string{"default": "", "one at a time": "concurrent-applies: false\n"} {
		t.Run(name, func(t *testing.T) { driftNeverOverlapsAPlan(t, settings) })
	}
}

func driftNeverOverlapsAPlan(t *testing.T, settings string) {
	started, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var order []string
	record := func(what string) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, what)
	}
	rules := bot.Rules{
		Plan: func(ctx context.Context, d review.Deps, req review.PlanRequest) (*review.PlanOutcome, error) {
			open := d.Open
			d.Open = func(ctx context.Context, cfg *cfgConfig, env string) (*reviewWorkspace, error) {
				ws, err := open(ctx, cfg, env) // the plan holds the state from here
				close(started)
				<-release
				record("plan")
				return ws, err
			}
			return review.Plan(ctx, d, req)
		},
		Drift: func(ctx context.Context, d review.Deps, req review.DriftRequest) (*review.DriftOutcome, error) {
			open := d.Open
			d.Open = func(ctx context.Context, cfg *cfgConfig, env string) (*reviewWorkspace, error) {
				ws, err := open(ctx, cfg, env)
				record("drift")
				return ws, err
			}
			return review.Drift(ctx, d, req)
		},
	}
	h, tick := driftHarness(t, harnessOpts{rules: rules})
	if settings != "" {
		h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte(settings))
	}
	let := sync.OnceFunc(func() { close(release) })
	defer let() // the plan ends however the test does
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	<-started
	tick <- time.Now()
	// The round's drift job waits behind the plan: running and waiting for
	// its turn on the state (the default), or, with concurrent-applies:
	// false, queued on its key; one that would not wait would record
	// itself first.
	eventually(t, "the drift check neither waits for the plan nor ran", func() bool {
		mu.Lock()
		ran := len(order) > 0
		mu.Unlock()
		m := h.metrics()
		queued := m[`kyku_bot_jobs_total{kind="drift-schedule",outcome="routed"}`] == 1 && m["kyku_bot_queue_depth"] == 1 && m["kyku_bot_jobs_running"] == 1
		return ran || queued || strings.Contains(h.logs(), `"msg":"waiting for the turn on the state"`)
	})
	let()
	h.settle()
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{"plan", "drift"}, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// recordDrift replaces review.Drift with a recorder of the targets checked.
type recordDrift struct {
	mu    sync.Mutex
	calls []string // owner/name project/env write-state
}

func (r *recordDrift) rule(_ context.Context, d review.Deps, req review.DriftRequest) (*review.DriftOutcome, error) {
	repo := d.GitHub.(*github.Repo)
	r.mu.Lock()
	defer r.mu.Unlock()
	ws := ""
	if req.WriteState {
		ws = " write-state"
	}
	r.calls = append(r.calls, repo.Owner()+"/"+repo.Name()+" "+req.Settings.Project+"/"+req.Settings.Environment+ws)
	return &review.DriftOutcome{}, nil
}

func (r *recordDrift) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.calls)
	slices.Sort(out)
	r.calls = nil
	return out
}

const twoEnvSettings = `
drift: { write-state: true }
projects:
  - name: infra
    config: kyku.yaml
    environments: [staging, prod]
`

// repositoryDispatch is a repository_dispatch delivery for the fixtures'
// repository, built from the real push payload's repository, sender and
// installation.
func repositoryDispatch(t *testing.T, eventType string, clientPayload map[string]any) []byte {
	return fixture(t, "push.with-installation", func(p map[string]any) {
		for k := range p {
			if k != "repository" && k != "sender" && k != "installation" {
				delete(p, k)
			}
		}
		p["action"], p["branch"], p["client_payload"] = eventType, defaultBranch, clientPayload
		obj(p, "installation")["id"] = installation
	})
}

// TestRepositoryDispatchChecksOneRepository: a kyku-drift dispatch checks
// every environment of that repository only (no installation listing),
// honours client_payload's environment and the write-state setting, and
// runs even when the schedule is disabled; other dispatches are ignored.
func TestRepositoryDispatchChecksOneRepository(t *testing.T) {
	rec := &recordDrift{}
	h := newHarness(t, harnessOpts{rules: bot.Rules{Drift: rec.rule}}) // no schedule
	const other = "Codertocat/Other"
	h.gh.AddRepo(other, "main")
	h.gh.SetFile(other, "main", "kyku.yaml", []byte(configV1))
	h.gh.AddInstallation(installation, "Codertocat", repoName, other)
	h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte(twoEnvSettings))

	h.deliver("repository_dispatch", repositoryDispatch(t, bot.DriftEventType, map[string]any{}))
	h.settle()
	want := []string{repoName + " infra/prod write-state", repoName + " infra/staging write-state"}
	if diff := cmp.Diff(want, rec.got()); diff != "" {
		t.Errorf("checked (-want +got):\n%s", diff)
	}

	h.deliver("repository_dispatch", repositoryDispatch(t, bot.DriftEventType, map[string]any{"environment": "prod"}))
	h.settle()
	if diff := cmp.Diff([]string{repoName + " infra/prod write-state"}, rec.got()); diff != "" {
		t.Errorf("environment prod only (-want +got):\n%s", diff)
	}

	h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte("drift: { enabled: false }\n"))
	h.deliver("repository_dispatch", repositoryDispatch(t, bot.DriftEventType, nil))
	h.settle()
	if diff := cmp.Diff([]string{repoName + " /"}, rec.got()); diff != "" {
		t.Errorf("asked for explicitly with drift disabled (-want +got):\n%s", diff)
	}

	if code, msg := h.post("repository_dispatch", "other-type", repositoryDispatch(t, "deploy", nil), ""); code != http.StatusOK || !strings.Contains(msg, "ignored") {
		t.Errorf("another event_type: %d %q, want 200 ignored", code, msg)
	}
	h.settle()
	if got := rec.got(); len(got) != 0 {
		t.Errorf("another event_type checked %v", got)
	}
	if n := h.gh.CountRequests("GET", "/app/installations"); n != 0 {
		t.Errorf("a dispatch listed installations %d times, want a check of its repository only", n)
	}
	if m := h.metrics(); m[`kyku_bot_jobs_total{kind="drift",outcome="clean"}`] != 4 {
		t.Errorf("drift jobs counted %v, want 4", m[`kyku_bot_jobs_total{kind="drift",outcome="clean"}`])
	}
}

// TestScheduledRoundSkipsWhatIsNotKykus: archived repositories and
// repositories without settings or kyku.yaml are not checked, drift:
// enabled: false opts a repository out of the schedule, execution: actions
// dispatches the user's workflow with command refresh, and a second
// installation's repositories are checked with its own token.
func TestScheduledRoundSkipsWhatIsNotKykus(t *testing.T) {
	rec := &recordDrift{}
	h, tick := driftHarness(t, harnessOpts{rules: bot.Rules{Drift: rec.rule}})
	for name, files := range map[string]map[string]string{
		"Codertocat/Archived": {"kyku.yaml": configV1},
		"Codertocat/Docs":     {"README.md": "hi"},
		"Codertocat/Optout":   {"kyku.yaml": configV1, ".kyku/config.yaml": "drift: { enabled: false }\n"},
		"Codertocat/Actions":  {"kyku.yaml": configV1, ".kyku/config.yaml": "execution: actions\n"},
		"acme/infra":          {"kyku.yaml": configV1},
	} {
		h.gh.AddRepo(name, "main")
		for p, c := range files {
			h.gh.SetFile(name, "main", p, []byte(c))
		}
	}
	h.gh.SetArchived("Codertocat/Archived", true)
	h.gh.AddInstallation(installation, "Codertocat", repoName, "Codertocat/Archived", "Codertocat/Docs", "Codertocat/Optout", "Codertocat/Actions")
	h.gh.AddInstallation(2, "acme", "acme/infra")

	h.round(tick)
	if diff := cmp.Diff([]string{"Codertocat/Hello-World /", "acme/infra /"}, rec.got()); diff != "" {
		t.Errorf("checked (-want +got):\n%s", diff)
	}
	d := h.gh.Dispatches("Codertocat/Actions")
	if len(d) != 1 || d[0].Inputs["command"] != "refresh" || d[0].Ref != "refs/heads/main" {
		t.Errorf("execution: actions dispatches = %+v, want one refresh on refs/heads/main", d)
	}
	m := h.metrics()
	for outcome, want := range map[string]float64{"routed": 2, "not-kyku": 1, "disabled": 1, "dispatched": 1} {
		if got := m[`kyku_bot_jobs_total{kind="drift-schedule",outcome="`+outcome+`"}`]; got != want {
			t.Errorf("drift-schedule %s = %v, want %v", outcome, got, want)
		}
	}
	if n := h.gh.CountRequests("POST", "/app/installations/2/access_tokens"); n != 1 {
		t.Errorf("%d token exchanges for installation 2, want 1", n)
	}
}

func TestDriftIntervalFromEnv(t *testing.T) {
	_, pemBytes := testKey(t)
	for _, tc := range []struct {
		value   string
		want    time.Duration
		wantErr bool
	}{
		{"", 24 * time.Hour, false},
		{"0", 0, false},
		{"6h", 6 * time.Hour, false},
		{"1m", time.Minute, false},
		{"10s", 0, true},
		{"-1h", 0, true},
		{"daily", 0, true},
	} {
		t.Run(tc.value, func(t *testing.T) {
			env := map[string]string{
				bot.EnvAppID: "42", bot.EnvPrivateKey: string(pemBytes), bot.EnvWebhookSecret: "s",
				bot.EnvDriftInterval: tc.value, bot.EnvPolicy: policyFile,
			}
			cfg, err := bot.ConfigFromEnv(func(k string) string { return env[k] }, readPolicy)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), bot.EnvDriftInterval) {
					t.Errorf("err = %v, want one naming %s", err, bot.EnvDriftInterval)
				}
				return
			}
			if err != nil || cfg.DriftInterval != tc.want {
				t.Errorf("DriftInterval = %v (%v), want %v", cfg.DriftInterval, err, tc.want)
			}
		})
	}
}
