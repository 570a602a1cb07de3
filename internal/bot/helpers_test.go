package bot_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/tenancy"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/github/webhooktest"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/statemgr/gcs/gcstest"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
	"github.com/kyku/action/internal/workspace"
	"github.com/kyku/action/internal/workspace/awsstore"
)

// TestMain gives the tests the S3 server and the GCS emulator (skipped
// without them, a failure under CI=true).
func TestMain(m *testing.M) {
	stopS3, err := s3test.Setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	stopGCS, err := gcstest.Setup()
	if err != nil {
		stopS3()
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	code := m.Run()
	stopGCS()
	stopS3()
	os.Exit(code)
}

const (
	repoName      = "Codertocat/Hello-World" // as in testdata/github-events
	defaultBranch = "master"
	installation  = 1
	appID         = 42
	secret        = "webhook-s3cr3t"
	headA         = "aaaaaaa1111111111111111111111111111111aa"
	headB         = "bbbbbbb2222222222222222222222222222222bb"
)

// configV1 is the default branch's project; configV2 adds a resource.
const configV1 = `resources:
  web:
    type: Vm
    properties: { image: debian-12 }
`

const configV2 = configV1 + `  worker:
    type: Vm
    properties: { image: debian-12, size: large }
`

var (
	keyOnce sync.Once
	appKey  *rsa.PrivateKey
	appPEM  []byte
)

// testKey is the App's private key, generated once per test binary.
func testKey(t *testing.T) (*rsa.PrivateKey, []byte) {
	keyOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		appKey = k
		appPEM = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
	})
	return appKey, appPEM
}

// harness is one test's fake GitHub, sim cloud, state and running bot.
type harness struct {
	t        *testing.T
	gh       *githubtest.Server
	bot      *bot.Bot
	ran      func() error // waits for the bot's Run to return
	http     *httptest.Server
	policy   *tenancy.Policy
	simDir   string // the sim's root: each repository's cloud is under <owner>/<repo>/
	stateDir string // local state's root: each repository's state is under <owner>/<repo>/
	nextID   int
	mu       sync.Mutex
	tenants  []bot.Tenant // every workspace opened
	simDirs  []string     // every sim cloud directory opened
	log      logBuffer    // the bot's log (JSON lines)
	// lockTimeout is how long a state lock or lease is waited for (0: 20s).
	lockTimeout time.Duration
	sim         func(provider.Provider) provider.Provider // harnessOpts.sim
}

// logBuffer is a bytes.Buffer safe for the bot's goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// logs is what the bot logged so far.
func (h *harness) logs() string {
	h.log.mu.Lock()
	defer h.log.mu.Unlock()
	return h.log.buf.String()
}

// The test repository's numeric ID and creation time (as in
// testdata/github-events), and its namespace, keyed by the ID; legacy is
// the namespace it had while namespaces were keyed by its name.
const (
	repoID    = 186853002
	namespace = "repo.186853002"
	legacy    = "codertocat/hello-world"
)

var repoCreated = time.Date(2025, 5, 15, 15, 19, 25, 0, time.UTC)

// cloudDir is where the test repository's sim cloud lives.
func (h *harness) cloudDir() string { return filepath.Join(h.simDir, namespace, "sim") }

// openRepo opens the test repository's workspace for cfg as the bot does:
// confined by the policy, then h.open.
func (h *harness) openRepo(ctx context.Context, cfg *config.Config, env string) (*review.Workspace, error) {
	c, err := tenancy.Confine(cfg, h.policy.For("Codertocat", "Hello-World", repoID))
	if err != nil {
		return nil, err
	}
	return h.open(ctx, bot.Tenant{Repo: repoName, ID: repoID, Namespace: namespace, Legacy: legacy, Created: repoCreated}, c.Config, env)
}

type harnessOpts struct {
	workers int
	queue   int
	rules   bot.Rules
	backend string // extra YAML appended to the project configs (e.g. an s3 backend)
	// policy is the operator's policy YAML (default: testPolicy(), which
	// lets Codertocat's repositories use the sim).
	policy string
	sts    *fakeSTS // answers AssumeRole (nil: the bot has no STS client)
	// driftInterval and after drive the drift schedule (0: none).
	driftInterval time.Duration
	after         func(time.Duration) <-chan time.Time
	// store, replica and now: the bot's shared store, its name there, and
	// its clock (nil, "", nil: none, the default, time.Now).
	store   jobs.Objects
	replica string
	now     func() time.Time
	// lease and actions: the job lease and the watch of dispatched runs
	// (zero: the defaults).
	lease   time.Duration
	actions bot.ActionsOptions
	jitter  func(time.Duration) time.Duration
	// ctx is what the bot runs with (nil: a context of its own, ended by
	// the test's cleanup through Shutdown).
	ctx context.Context
	// lockTimeout: see harness.lockTimeout.
	lockTimeout time.Duration
	// diskRootFiles: the bot is told, as cmd/bot's is, that its opener
	// keeps an http root state's files on one replica's disk
	// (Options.SharedRootFiles false).
	diskRootFiles bool
	// sim, when set, wraps every sim provider the bot opens (a test's gate).
	sim func(provider.Provider) provider.Provider
}

func newHarness(t *testing.T, o harnessOpts) *harness {
	t.Helper()
	key, _ := testKey(t)
	dir := t.TempDir()
	h := &harness{t: t, gh: githubtest.NewServer(t), simDir: filepath.Join(dir, "sim"), stateDir: filepath.Join(dir, "state"), lockTimeout: o.lockTimeout, sim: o.sim}
	h.gh.SetApp(appID, &key.PublicKey, "kyku[bot]")
	h.gh.AddRepo(repoName, defaultBranch)
	h.gh.SetRepoID(repoName, repoID, repoCreated)
	h.gh.SetRef(repoName, defaultBranch, baseSHA)
	// The merges of the tests land on baseSHA: the merge commit's first
	// parent, where a merge's rules are read.
	h.gh.AddCommit(repoName, githubtest.GitCommit{SHA: mergeSHA, Parents: []string{baseSHA, headA}, Message: "Merge pull request"})
	h.gh.AddInstallation(installation, "Codertocat", repoName)
	h.gh.SetFile(repoName, defaultBranch, "kyku.yaml", []byte(configV1+o.backend))
	h.gh.SetFile(repoName, headA, "kyku.yaml", []byte(configV2+o.backend))
	h.gh.SetFile(repoName, headB, "kyku.yaml", []byte(configV2+o.backend))
	// The usual reviewer may approve (write permission).
	h.gh.SetPermission(repoName, "reviewer", "write")
	if o.policy == "" {
		o.policy = testPolicy()
	}
	var pol *tenancy.Policy
	if o.policy != noPolicy {
		var err error
		if pol, err = tenancy.Parse("policy.yaml", []byte(o.policy)); err != nil {
			t.Fatal(err)
		}
	}
	h.policy = pol
	h.start(o)
	return h
}

// start runs a bot on h's fake GitHub, state and cloud, with its own
// webhook server.
func (h *harness) start(o harnessOpts) {
	t := h.t
	_, pemBytes := testKey(t)
	pol := h.policy
	if o.workers == 0 {
		o.workers = 4
	}
	opts := bot.Options{
		Config: bot.Config{
			AppID: appID, PrivateKey: pemBytes, WebhookSecret: []byte(secret), APIURL: h.gh.APIURL(),
			Workers: o.workers, QueueCapacity: o.queue, DriftInterval: o.driftInterval, Policy: pol,
		},
		Open: h.open,
		// h.open keeps an http root state's files under the test's state
		// dir, which every job sees.
		SharedRootFiles: !o.diskRootFiles,
		Rules:           o.rules,
		After:           o.after,
		Store:           o.store,
		Replica:         o.replica,
		Now:             o.now,
		Lease:           o.lease,
		Actions:         o.actions,
		Jitter:          o.jitter,
		Logger:          slog.New(slog.NewJSONHandler(&h.log, nil)),
	}
	if o.sts != nil {
		opts.STS = o.sts.client(t)
	}
	b, err := bot.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.bot = b
	ran := make(chan error, 1)
	runCtx := o.ctx
	if runCtx == nil {
		// Not t.Context: the cleanup stops the bot with Shutdown, after
		// t.Context has ended.
		runCtx = context.Background()
	}
	go func() { ran <- b.Run(runCtx) }()
	h.ran = sync.OnceValue(func() error { return <-ran })
	h.http = httptest.NewServer(b.Handler())
	t.Cleanup(func() {
		// t.Context has ended here.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := b.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err, ok := h.stopped(20 * time.Second); !ok {
			t.Errorf("the bot's Run did not return after Shutdown")
		} else if err != nil && runCtx.Err() == nil {
			t.Errorf("run: %v", err)
		}
		h.http.Close()
	})
}

// stopped is what the bot's Run returned, waited for at most d (ok false:
// it had not returned).
func (h *harness) stopped(d time.Duration) (err error, ok bool) {
	done := make(chan error, 1)
	go func() { done <- h.ran() }()
	select {
	case err := <-done:
		return err, true
	case <-time.After(d):
		return nil, false
	}
}

// replica is a second bot on h's fake GitHub, state and cloud, as a
// second replica behind the same load balancer would be.
func (h *harness) replica(o harnessOpts) *harness {
	r := &harness{t: h.t, gh: h.gh, policy: h.policy, simDir: h.simDir, stateDir: h.stateDir}
	r.start(o)
	return r
}

// noPolicy as harnessOpts.policy runs the bot without an operator policy.
const noPolicy = "-"

// testPolicy is the operator's policy of the tests: Codertocat's
// repositories may use the sim, the given buckets, and endpoints (the
// S3 server's).
func testPolicy(buckets ...string) string {
	var names []string
	for _, b := range buckets {
		if b != "" {
			names = append(names, b)
		}
	}
	return "repositories:\n  - match: [\"Codertocat/*\"]\n    providers: [sim]\n    allow-endpoint: true\n" +
		"    buckets: [" + bucketList(names) + "]\n"
}

// open is the Opener cmd/bot builds, on the test's dirs: the (confined,
// relative) local state path and sim dir resolved under stateDir and
// simDir.
func (h *harness) open(ctx context.Context, t bot.Tenant, cfg *config.Config, env string) (*review.Workspace, error) {
	h.mu.Lock()
	h.tenants = append(h.tenants, t)
	h.mu.Unlock()
	reg := provider.Registry{"sim": func(ctx context.Context, settings map[string]string, getenv func(string) string) (provider.Provider, error) {
		s := maps.Clone(settings)
		if s == nil {
			s = map[string]string{}
		}
		// The config's own (confined, relative) dir, as cmd/bot resolves it:
		// BaseDir below is for the local state only.
		if err := t.AdoptDir(h.simDir, cfg.Provider.Settings["dir"]); err != nil {
			return nil, err
		}
		s["dir"] = filepath.Join(h.simDir, filepath.FromSlash(cfg.Provider.Settings["dir"]))
		h.mu.Lock()
		h.simDirs = append(h.simDirs, s["dir"])
		h.mu.Unlock()
		p, err := sim.Factory(ctx, s, getenv)
		if err != nil || h.sim == nil {
			return p, err
		}
		return h.sim(p), nil
	}}
	if b := cfg.Backend; b != nil && b.Type == "local" {
		if err := t.AdoptDir(h.stateDir, b.Path); err != nil {
			return nil, err
		}
	}
	var stateDir string
	if ts := t.Terraform; ts != nil && ts.Type == "http" {
		// Kyku's additions to a Terraform root's http backend (saved
		// plans, backups) live on disk: here under the test's state dir,
		// one directory per address (cmd/bot refuses the http backend
		// for a root, its disk being no place for them).
		addr, _ := ts.Args["address"].(string)
		stateDir = filepath.Join(h.stateDir, t.Namespace, url.PathEscape(addr))
	}
	ws := workspace.Settings{
		Env: env, BaseDir: h.stateDir, LockTimeout: 20 * time.Second, Getenv: os.Getenv, Terraform: t.Terraform, NoFormerCheck: t.Terraform != nil, StateDir: stateDir,
		AWS: awsstore.Store{Credentials: t.Credentials}, // as cmd/bot: a Terraform root's s3 state with the bucket's role
		Engine: engine.Options{DeployPrefix: "test", RetryBase: time.Millisecond, RetryMax: 5 * time.Millisecond,
			DestroyBase: time.Millisecond, VerifyInterval: time.Millisecond},
	}
	if h.lockTimeout != 0 {
		ws.LockTimeout, ws.PollInterval = h.lockTimeout, 20*time.Millisecond
	}
	opened, err := workspace.Open(ctx, cfg, ws, reg)
	if err != nil {
		return nil, err
	}
	return &review.Workspace{Engine: opened.Engine, Backend: opened.Backend}, nil
}

// fixture loads one of the repository's webhook payloads
// (testdata/github-events, see package webhooktest for the names) and lets
// the test change fields.
func fixture(t *testing.T, name string, mutate func(p map[string]any)) []byte {
	t.Helper()
	data, ok := fixtures.Load(name)
	if !ok {
		data = readFixture(t, name)
		fixtures.Store(name, data)
	}
	var p map[string]any
	if err := json.Unmarshal(data.([]byte), &p); err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(p)
	}
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var fixtures sync.Map // name -> []byte

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	return webhooktest.Payload(t, name)
}

// obj walks into nested objects of a decoded payload.
var obj = webhooktest.Object

// prOpened is pull_request.opened for PR number at head sha.
func prOpened(t *testing.T, number int, sha string) []byte {
	return fixture(t, "pull_request.opened.with-organization", func(p map[string]any) {
		p["number"] = number
		obj(p, "pull_request")["number"] = number
		obj(p, "pull_request", "head")["sha"] = sha
		obj(p, "installation")["id"] = installation
	})
}

// commentOn is issue_comment.created on PR number by login.
func commentOn(t *testing.T, number int, login, userType, body string, id int64) []byte {
	return fixture(t, "issue_comment.created.with-installation", func(p map[string]any) {
		is := obj(p, "issue")
		is["number"] = number
		is["pull_request"] = map[string]any{"url": fmt.Sprintf("https://api.github.com/repos/%s/pulls/%d", repoName, number)}
		c := obj(p, "comment")
		c["body"], c["id"] = body, id
		u := obj(p, "comment", "user")
		u["login"], u["type"] = login, userType
		obj(p, "installation")["id"] = installation
	})
}

func sign(body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// post delivers a webhook; sig "" means a correct signature, "-" none.
func (h *harness) post(event, delivery string, body []byte, sig string) (int, string) {
	h.t.Helper()
	req, err := http.NewRequest("POST", h.http.URL+"/webhook", bytes.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	switch sig {
	case "":
		req.Header.Set("X-Hub-Signature-256", sign(body))
	case "-":
	default:
		req.Header.Set("X-Hub-Signature-256", sig)
	}
	resp, err := h.http.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(msg))
}

// deliver posts a correctly signed webhook with a fresh delivery ID and
// wants a 202.
func (h *harness) deliver(event string, body []byte) {
	h.t.Helper()
	h.mu.Lock()
	h.nextID++
	id := "delivery-" + strconv.Itoa(h.nextID)
	h.mu.Unlock()
	if code, msg := h.post(event, id, body, ""); code != http.StatusAccepted {
		h.t.Fatalf("%s delivery: %d %s, want 202", event, code, msg)
	}
}

// scrape fetches /metrics and parses it with Prometheus' own text parser.
func (h *harness) scrape() map[string]*dto.MetricFamily {
	h.t.Helper()
	resp, err := http.Get(h.http.URL + "/metrics")
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		h.t.Fatalf("GET /metrics: %s", resp.Status)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		h.t.Fatalf("parse /metrics: %v", err)
	}
	return families
}

// metrics scrapes /metrics into name{label="value",…} → value, labels in
// name order, as the exposition writes them (histograms as their _bucket
// with le, _sum and _count series).
func (h *harness) metrics() map[string]float64 {
	h.t.Helper()
	out := map[string]float64{}
	for name, mf := range h.scrape() {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, lp := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", lp.GetName(), lp.GetValue()))
			}
			key := func(suffix string, extra ...string) string {
				all := append(slices.Clone(labels), extra...)
				slices.Sort(all)
				if len(all) == 0 {
					return name + suffix
				}
				return name + suffix + "{" + strings.Join(all, ",") + "}"
			}
			switch {
			case m.GetCounter() != nil:
				out[key("")] = m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				out[key("")] = m.GetGauge().GetValue()
			case m.GetUntyped() != nil:
				out[key("")] = m.GetUntyped().GetValue()
			case m.GetHistogram() != nil:
				hg := m.GetHistogram()
				for _, b := range hg.GetBucket() {
					le := strconv.FormatFloat(b.GetUpperBound(), 'g', -1, 64)
					out[key("_bucket", fmt.Sprintf("le=%q", le))] = float64(b.GetCumulativeCount())
				}
				out[key("_bucket", `le="+Inf"`)] = float64(hg.GetSampleCount())
				out[key("_sum")] = hg.GetSampleSum()
				out[key("_count")] = float64(hg.GetSampleCount())
			case m.GetSummary() != nil:
				out[key("_sum")] = m.GetSummary().GetSampleSum()
				out[key("_count")] = float64(m.GetSummary().GetSampleCount())
			}
		}
	}
	return out
}

// settle waits until no job is queued or running.
func (h *harness) settle() {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if h.idle() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.t.Fatal("jobs still queued or running after 30s")
}

// pr seeds pull request number touching kyku.yaml at head sha.
func (h *harness) pr(number int, sha string) {
	h.gh.AddPullRequest(repoName, githubtest.PullRequest{
		Number: number, User: "author", HeadSHA: sha, HeadRef: "feature-" + strconv.Itoa(number), Files: []string{"kyku.yaml"},
	})
}

// botComments are the PR's comments written by the App.
func (h *harness) botComments(number int) []githubtest.Comment {
	var out []githubtest.Comment
	for _, c := range h.gh.Comments(repoName, number) {
		if c.User == "kyku[bot]" {
			out = append(out, c)
		}
	}
	return out
}

type (
	githubtestPR    = githubtest.PullRequest
	cfgConfig       = config.Config
	reviewWorkspace = review.Workspace
)

// fixtureAction changes a payload's action.
func fixtureAction(t *testing.T, body []byte, action string) []byte {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	p["action"] = action
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func bucketList(names []string) string {
	var items []string
	for _, n := range names {
		items = append(items, "{ name: "+n+" }")
	}
	return strings.Join(items, ", ")
}

// opened lists the tenants of every workspace opened so far.
func (h *harness) opened() []bot.Tenant {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]bot.Tenant(nil), h.tenants...)
}

// eventually waits up to 20 seconds for cond, failing with msg.
func eventually(t *testing.T, msg string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
