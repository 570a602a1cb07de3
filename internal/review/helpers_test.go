package review_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gh "github.com/google/go-github/v88/github"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/workspace"
	"github.com/kyku/action/internal/workspace/awsstore"
)

const (
	repoName = "acme/infra"
	secret   = "s3cr3t-value"
	runURL   = "https://github.example/acme/infra/actions/runs/42"
	env      = "prod"
	headA    = "aaaaaaa1111111111111111111111111111111aa"
	headB    = "bbbbbbb2222222222222222222222222222222bb"
)

// configV1 creates one Vm whose userData is sensitive.
const configV1 = `
resources:
  web:
    type: Vm
    properties: { image: debian-12, userData: s3cr3t-value }
`

// configV2 adds a second Vm.
const configV2 = configV1 + `
  worker:
    type: Vm
    properties: { image: debian-12, size: large }
`

// fixture is one test's GitHub (the fake), cloud (the sim) and backend
// (local, in a temp dir), wired into review.Deps as a front door would.
type fixture struct {
	t        *testing.T
	srv      *githubtest.Server
	simDir   string
	stateDir string
	deps     review.Deps
	settings review.Settings

	mu      sync.Mutex
	clock   time.Time
	sources map[string]string // ref → config YAML (the PR heads)
	trusted string            // the default branch's config YAML
	masked  []string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{
		t: t, srv: githubtest.NewServer(t),
		simDir: filepath.Join(dir, "sim"), stateDir: filepath.Join(dir, "state"),
		clock:    time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC),
		sources:  map[string]string{headA: configV1, headB: configV2},
		trusted:  configV1,
		settings: review.Settings{Environment: env},
	}
	f.srv.AddRepo(repoName, "main")
	client, err := github.NewClient(t.Context(), f.srv.APIURL(), nil, gh.WithAuthToken(githubtest.Token))
	if err != nil {
		t.Fatal(err)
	}
	owner, name, _ := strings.Cut(repoName, "/")
	f.deps = review.Deps{
		GitHub: github.New(client, owner, name),
		Open:   f.open,
		Now:    f.now,
		RunURL: runURL,
		Mask: func(s string) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.masked = append(f.masked, s)
		},
		Source: func(_ context.Context, ref string) (*config.Config, error) {
			f.mu.Lock()
			src, ok := f.sources[ref]
			f.mu.Unlock()
			if !ok {
				return nil, os.ErrNotExist
			}
			return config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(strings.TrimLeft(src, "\n"))}})
		},
		Trusted: func(context.Context) (*config.Config, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			return parse(t, f.trusted), nil
		},
	}
	return f
}

func (f *fixture) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.clock = f.clock.Add(time.Second)
	return f.clock
}

// open is the Opener a front door builds: workspace.Open with an explicit
// registry; the sim's directory is the test's.
func (f *fixture) open(ctx context.Context, cfg *config.Config, env string) (*review.Workspace, error) {
	return f.openWith(nil)(ctx, cfg, env)
}

// openWith is an Opener whose sim gets extra settings (e.g. failures).
func (f *fixture) openWith(extra map[string]string) review.Opener {
	return func(ctx context.Context, cfg *config.Config, env string) (*review.Workspace, error) {
		return f.openSim(ctx, cfg, env, extra)
	}
}

func (f *fixture) openSim(ctx context.Context, cfg *config.Config, env string, extra map[string]string) (*review.Workspace, error) {
	reg := provider.Registry{"sim": func(ctx context.Context, settings map[string]string, getenv func(string) string) (provider.Provider, error) {
		s := maps.Clone(settings)
		if s == nil {
			s = map[string]string{}
		}
		maps.Copy(s, extra)
		s["dir"] = f.simDir
		return sim.Factory(ctx, s, getenv)
	}}
	ws, err := workspace.Open(ctx, cfg, workspace.Settings{
		Env: env, StateDir: f.stateDir, LockTimeout: 2 * time.Second, AWS: awsstore.Store{},
		Engine: engine.Options{
			DeployPrefix: "test", RetryBase: time.Millisecond, RetryMax: 5 * time.Millisecond,
			DestroyBase: time.Millisecond, VerifyInterval: time.Millisecond,
		},
	}, reg)
	if err != nil {
		return nil, err
	}
	return &review.Workspace{Engine: ws.Engine, Backend: ws.Backend}, nil
}

func (f *fixture) workspace() *review.Workspace {
	f.t.Helper()
	ws, err := f.open(f.t.Context(), parse(f.t, configV1), env)
	if err != nil {
		f.t.Fatal(err)
	}
	return ws
}

func (f *fixture) backend() statemgr.Backend { return f.workspace().Backend }

// serial is the state serial (0 without state).
func (f *fixture) serial() int64 {
	f.t.Helper()
	st, err := f.backend().Read(f.t.Context())
	if err != nil {
		f.t.Fatal(err)
	}
	if st == nil {
		return 0
	}
	return st.Metadata.Serial
}

func (f *fixture) state() *state.File {
	f.t.Helper()
	st, err := f.backend().Read(f.t.Context())
	if err != nil || st == nil {
		f.t.Fatalf("read state: %v (state %v)", err, st)
	}
	return st
}

// cloud lists the sim's object files.
func (f *fixture) cloud() []string {
	f.t.Helper()
	files, err := filepath.Glob(filepath.Join(f.simDir, "*", "*.json"))
	if err != nil {
		f.t.Fatal(err)
	}
	for i := range files {
		files[i], _ = filepath.Rel(f.simDir, files[i])
	}
	return files
}

// objects returns the backend objects under prefix, by key.
func (f *fixture) objects(prefix string) map[string][]byte {
	f.t.Helper()
	ctx := f.t.Context()
	b := f.backend()
	keys, err := b.ListObjects(ctx, prefix)
	if err != nil {
		f.t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, k := range keys {
		data, err := b.GetObject(ctx, k)
		if err != nil {
			f.t.Fatal(err)
		}
		out[k] = data
	}
	return out
}

// audits decodes the audit records, oldest first.
func (f *fixture) audits() []review.AuditRecord {
	f.t.Helper()
	objs := f.objects("runs/")
	keys := slices.Sorted(maps.Keys(objs))
	var out []review.AuditRecord
	for _, k := range keys {
		var r review.AuditRecord
		if err := json.Unmarshal(objs[k], &r); err != nil {
			f.t.Fatalf("audit record %s: %v", k, err)
		}
		out = append(out, r)
	}
	return out
}

// addPR seeds pull request number by "author" at head.
func (f *fixture) addPR(number int, head string) {
	f.srv.AddPullRequest(repoName, githubtest.PullRequest{
		Number: number, User: "author", HeadSHA: head, HeadRef: "change-" + head[:4], Title: "change",
	})
}

// plan plans PR number at head with the head's config, failing the test on error.
func (f *fixture) plan(number int, head string) *review.PlanOutcome {
	f.t.Helper()
	f.mu.Lock()
	src := f.sources[head]
	f.mu.Unlock()
	out, err := review.Plan(f.t.Context(), f.deps, review.PlanRequest{
		Settings: f.settings, Number: number, HeadSHA: head,
		Config: parse(f.t, src), Trusted: parse(f.t, f.trusted),
	})
	if err != nil {
		f.t.Fatalf("plan #%d at %s: %v", number, head[:7], err)
	}
	return out
}

// comment posts a /kyku comment by user on number and returns the event.
func (f *fixture) comment(number int, user, body string) review.CommentEvent {
	id := f.srv.AddComment(repoName, number, user, body)
	return review.CommentEvent{Action: "created", Number: number, IsPR: true, Body: body, Author: user, CommentID: id}
}

// reactions lists the reactions on comment id, in order.
func (f *fixture) reactions(number int, id int64) []string {
	var out []string
	for _, c := range f.srv.Comments(repoName, number) {
		if c.ID == id {
			for _, r := range c.Reactions {
				out = append(out, r.Content)
			}
		}
	}
	return out
}

// bodies are the comment bodies on number not written by users (the bot's).
func (f *fixture) replies(number int) []string {
	var out []string
	for _, c := range f.srv.Comments(repoName, number) {
		if c.User == githubtest.TokenUser {
			out = append(out, c.Body)
		}
	}
	return out
}

// noSecret fails when the secret appears in anything a user can read.
func (f *fixture) noSecret(extra ...string) {
	f.t.Helper()
	texts := slices.Clone(extra)
	for n := 1; n <= 5; n++ {
		for _, c := range f.srv.Comments(repoName, n) {
			texts = append(texts, c.Body)
		}
	}
	for _, is := range f.srv.Issues(repoName) {
		texts = append(texts, is.Title, is.Body)
	}
	for k, v := range f.objects("runs/") {
		texts = append(texts, k, string(v))
	}
	for _, s := range texts {
		if strings.Contains(s, secret) {
			f.t.Errorf("the secret is in clear in:\n%s", s)
		}
	}
}

func parse(t *testing.T, yaml string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(strings.TrimLeft(yaml, "\n"))}})
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return cfg
}

func contains(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s does not contain %q:\n%s", what, sub, s)
		}
	}
}
