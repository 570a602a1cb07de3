package main

import (
	"bytes"
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
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kyku/action/internal/buildtest"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/github/webhooktest"
	"github.com/kyku/action/internal/statemgr/objstore/objstoretest"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

// The fixtures' repository (testdata/github-events).
const (
	fixtureRepo   = "Codertocat/Hello-World"
	fixtureRepoID = 186853002
	fixtureBranch = "master"
	appID         = 42
	webhookSecret = "crash-test-webhook-secret"
)

var (
	botBinOnce sync.Once
	botBin     string
	botBinErr  error
)

// botBinary is cmd/bot, built once per test binary.
func botBinary(t *testing.T) string {
	t.Helper()
	botBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kyku-bot-bin")
		if err != nil {
			botBinErr = err
			return
		}
		botBin = filepath.Join(dir, "bot")
		if out, err := buildtest.Command("-o", botBin, ".").CombinedOutput(); err != nil {
			botBinErr = fmt.Errorf("build cmd/bot: %v\n%s", err, out)
		}
	})
	if botBinErr != nil {
		t.Fatal(botBinErr)
	}
	return botBin
}

// botProcess is a bot running as its own process.
type botProcess struct {
	t   *testing.T
	cmd *exec.Cmd
	url string
	log *bytes.Buffer
	mu  *sync.Mutex
}

type lockedWriter struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// startBot runs cmd/bot with env and waits until it is ready.
func startBot(t *testing.T, env []string) *botProcess {
	t.Helper()
	addr, err := objstoretest.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	p := &botProcess{t: t, url: "http://" + addr.String(), log: &bytes.Buffer{}, mu: &sync.Mutex{}}
	p.cmd = exec.Command(botBinary(t))
	p.cmd.Env = append(append(os.Environ(), env...), "KYKU_BOT_ADDR="+addr.String())
	p.cmd.Stdout = lockedWriter{p.mu, p.log}
	p.cmd.Stderr = lockedWriter{p.mu, p.log}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan struct{})
			go func() { _ = p.cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				_ = p.cmd.Process.Kill()
				<-done
			}
		}
	})
	waitFor(t, "the bot never became ready:", func() bool {
		resp, err := http.Get(p.url + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, p.logs)
	return p
}

func (p *botProcess) logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// kill ends the process with SIGKILL: nothing runs after it.
func (p *botProcess) kill() {
	p.t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		p.t.Fatal(err)
	}
	_ = p.cmd.Wait()
}

// deliver posts a signed webhook and wants a 202.
func (p *botProcess) deliver(event, id string, body []byte) {
	p.t.Helper()
	req, err := http.NewRequest("POST", p.url+"/webhook", bytes.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	mac := hmac.New(sha256.New, []byte(webhookSecret))
	mac.Write(body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		p.t.Fatalf("%s %s: %d %s", event, id, resp.StatusCode, msg)
	}
}

// metric reads one sample of the bot's /metrics ("name{labels}" as written).
func (p *botProcess) metric(series string) string {
	resp, err := http.Get(p.url + "/metrics")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			return v
		}
	}
	return ""
}

func waitFor(t *testing.T, msg string, cond func() bool, then ...func() string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			// What the processes said by now, not when the wait began.
			for _, f := range then {
				msg += "\n" + f()
			}
			t.Fatal(msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// payload is a fixture of testdata/github-events, changed by mutate.
func payload(t *testing.T, name string, mutate func(p map[string]any)) []byte {
	t.Helper()
	p := webhooktest.Decode(t, name, mutate)
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// field walks into nested objects of a decoded payload.
var field = webhooktest.Object

func prOpenedPayload(t *testing.T, number int, sha string) []byte {
	return payload(t, "pull_request.opened.with-organization", func(p map[string]any) {
		p["number"] = number
		field(p, "pull_request")["number"] = number
		field(p, "pull_request", "head")["sha"] = sha
		field(p, "installation")["id"] = 1
	})
}

func commentPayload(t *testing.T, number int, login, body string, id int64) []byte {
	return payload(t, "issue_comment.created.with-installation", func(p map[string]any) {
		is := field(p, "issue")
		is["number"] = number
		is["pull_request"] = map[string]any{"url": fmt.Sprintf("https://api.github.com/repos/%s/pulls/%d", fixtureRepo, number)}
		c := field(p, "comment")
		c["body"], c["id"] = body, id
		u := field(p, "comment", "user")
		u["login"], u["type"] = login, "User"
		field(p, "installation")["id"] = 1
	})
}

// appKey is a fresh RSA key for the App.
func appKey(t *testing.T) (*rsa.PrivateKey, string) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k, string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
}

func headOf(n int) string { return fmt.Sprintf("%040x", 0xc0ffee000+n) }

// TestKilledBotLosesNoJob: five pull requests' jobs — two plans, three
// /kyku apply — are accepted (202) by a bot process, which is killed with
// SIGKILL while they run (each held in the middle by GitHub: the plans
// with their check run open, the applies judging approvals). A new bot
// process started on the same store (the real S3 server) takes every job
// over once the dead one's leases expire and runs it to its end, exactly
// once: one check run per plan (the one the dead bot opened), one plan
// comment per pull request, one audit record and one result comment per
// apply, and each applied resource once in the cloud.
func TestKilledBotLosesNoJob(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	s := s3test.Require(t)
	bucket := s.NewBucket(t)
	// The five projects' jobs write under the repository's prefix at once.
	s.KeepDir(t, bucket, fmt.Sprintf("repo.%d/", fixtureRepoID))
	key, keyPEM := appKey(t)
	dir := t.TempDir()

	gh := githubtest.NewServer(t)
	gh.SetApp(appID, &key.PublicKey, "kyku[bot]")
	gh.AddRepo(fixtureRepo, fixtureBranch)
	gh.SetRepoID(fixtureRepo, fixtureRepoID, time.Date(2025, 5, 15, 15, 19, 25, 0, time.UTC))
	gh.AddInstallation(1, "Codertocat", fixtureRepo)
	gh.SetPermission(fixtureRepo, "reviewer", "write")
	gh.SetPermission(fixtureRepo, "writer", "write")
	settings := "apply: comment\nprojects:\n"
	for n := 1; n <= 5; n++ {
		settings += fmt.Sprintf("  - name: p%d\n    config: p%d/kyku.yaml\n", n, n)
		backend := fmt.Sprintf("provider: { name: sim, dir: cloud }\nbackend: { type: s3, bucket: %s, prefix: p%d, region: %s, endpoint: %q, usePathStyle: true }\n",
			bucket, n, s.Region, s.Endpoint)
		gh.SetFile(fixtureRepo, fixtureBranch, fmt.Sprintf("p%d/kyku.yaml", n), []byte(backend+"resources: {}\n"))
		gh.SetFile(fixtureRepo, headOf(n), fmt.Sprintf("p%d/kyku.yaml", n), []byte(backend+fmt.Sprintf(
			"resources:\n  vm%d:\n    type: Vm\n    properties: { image: debian-12 }\n", n)))
		gh.AddPullRequest(fixtureRepo, githubtest.PullRequest{Number: n, User: "author", HeadSHA: headOf(n), HeadRef: fmt.Sprintf("feature-%d", n),
			Files: []string{fmt.Sprintf("p%d/kyku.yaml", n)}})
	}
	gh.SetFile(fixtureRepo, fixtureBranch, ".kyku/config.yaml", []byte(settings))
	policy := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policy, []byte("repositories:\n  - match: [\"Codertocat/*\"]\n    providers: [sim]\n    allow-endpoint: true\n    buckets: [{ name: "+bucket+" }]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(s.Env(),
		"GITHUB_APP_ID=42", "GITHUB_APP_PRIVATE_KEY="+keyPEM, "GITHUB_WEBHOOK_SECRET="+webhookSecret,
		"GITHUB_API_URL="+gh.APIURL(), "KYKU_BOT_POLICY="+policy, "KYKU_BOT_SIM_ROOT="+filepath.Join(dir, "sim"),
		"KYKU_BOT_STORE=s3://"+bucket+"/kyku-bot?region="+s.Region+"&endpoint="+s.Endpoint+"&path-style=true",
		"KYKU_BOT_LEASE=2s", "KYKU_BOT_WORKERS=8", "KYKU_BOT_DRIFT_INTERVAL=0",
		"AWS_CONFIG_FILE=/nonexistent", "AWS_SHARED_CREDENTIALS_FILE=/nonexistent",
	)
	checkRuns := func(n int) []githubtest.CheckRun {
		var out []githubtest.CheckRun
		for _, c := range gh.CheckRuns(fixtureRepo) {
			if c.Name == fmt.Sprintf("kyku plan (p%d)", n) {
				out = append(out, c)
			}
		}
		return out
	}
	botComments := func(n int, mark string) int {
		k := 0
		for _, c := range gh.Comments(fixtureRepo, n) {
			if c.User == "kyku[bot]" && strings.Contains(c.Body, mark) {
				k++
			}
		}
		return k
	}

	// PRs 3 to 5 are planned and approved first.
	a := startBot(t, env)
	for n := 3; n <= 5; n++ {
		a.deliver("pull_request", fmt.Sprintf("plan-%d", n), prOpenedPayload(t, n, headOf(n)))
		gh.AddReview(fixtureRepo, n, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headOf(n)})
	}
	waitFor(t, "the first plans never ended:", func() bool {
		for n := 3; n <= 5; n++ {
			if cr := checkRuns(n); len(cr) != 1 || cr[0].Status != "completed" {
				return false
			}
		}
		return true
	}, a.logs)

	// Five jobs accepted, each held in the middle, then SIGKILL.
	release := gh.Hold(func(method, path string) bool {
		return method == "GET" && (strings.HasSuffix(path, "/tarball/"+headOf(1)) || strings.HasSuffix(path, "/tarball/"+headOf(2)) ||
			strings.HasSuffix(path, "/pulls/3/reviews") || strings.HasSuffix(path, "/pulls/4/reviews") || strings.HasSuffix(path, "/pulls/5/reviews"))
	})
	defer release()
	a.deliver("pull_request", "plan-1", prOpenedPayload(t, 1, headOf(1)))
	a.deliver("pull_request", "plan-2", prOpenedPayload(t, 2, headOf(2)))
	for n := 3; n <= 5; n++ {
		// Its own project only: pull requests' jobs run at once (the
		// default), so one per project each would hold more than five.
		a.deliver("issue_comment", fmt.Sprintf("apply-%d", n), commentPayload(t, n, "writer", fmt.Sprintf("/kyku apply -p p%d", n), int64(900+n)))
	}
	waitFor(t, "the five jobs never all ran:", func() bool { return gh.Held() == 5 }, a.logs)
	opened := map[int]int64{}
	for n := 1; n <= 2; n++ {
		cr := checkRuns(n)
		if len(cr) != 1 || cr[0].Status != "in_progress" {
			t.Fatalf("PR %d's check run before the kill: %+v", n, cr)
		}
		opened[n] = cr[0].ID
	}
	a.kill()
	release()

	b := startBot(t, env)
	waitFor(t, "the new bot did not finish the dead one's jobs:", func() bool {
		for n := 1; n <= 2; n++ {
			if cr := checkRuns(n); len(cr) == 0 || cr[len(cr)-1].Status != "completed" {
				return false
			}
		}
		for n := 3; n <= 5; n++ {
			if botComments(n, "kyku:applied") == 0 {
				return false
			}
		}
		return len(s.Keys(t, bucket, "kyku-bot/jobs/")) == 0
	}, b.logs, func() string {
		// Where each job stands: its check runs, result comments, and
		// the records and leases left in the store.
		var where []string
		for n := 1; n <= 5; n++ {
			where = append(where, fmt.Sprintf("PR %d: check runs %+v, apply results %d", n, checkRuns(n), botComments(n, "kyku:applied")))
		}
		where = append(where, fmt.Sprintf("job records %v, leases %v", s.Keys(t, bucket, "kyku-bot/jobs/"), s.Keys(t, bucket, "kyku-bot/leases/")))
		return strings.Join(where, "\n")
	})
	if got := b.metric(`kyku_bot_jobs_resumed_total{result="taken_over"}`); got != "5" {
		t.Errorf("jobs taken over = %q, want 5\n%s", got, b.logs())
	}
	for n := 1; n <= 2; n++ {
		cr := checkRuns(n)
		if len(cr) != 1 || cr[0].ID != opened[n] || cr[0].Conclusion != "success" {
			t.Errorf("PR %d: check runs %+v, want the one the dead bot opened, ended successfully", n, cr)
		}
		if c := botComments(n, "kyku:reviewed"); c != 1 {
			t.Errorf("PR %d: %d plan comments, want 1", n, c)
		}
	}
	audits := map[string]int{}
	for _, k := range s.Keys(t, bucket, "repo.186853002/") {
		if strings.Contains(k, "/runs/") {
			audits[k[strings.LastIndex(k, "-pr"):]]++
		}
	}
	for n := 3; n <= 5; n++ {
		if a := audits[fmt.Sprintf("-pr%d.json", n)]; a != 1 {
			t.Errorf("PR %d: %d audit records, want 1 (all: %v)", n, a, audits)
		}
		if c := botComments(n, "kyku:applied"); c != 1 {
			t.Errorf("PR %d: %d apply results, want 1", n, c)
		}
		if c := botComments(n, "kyku:reviewed"); c != 1 {
			t.Errorf("PR %d: %d plan comments, want 1", n, c)
		}
	}
	if len(audits) != 3 {
		t.Errorf("audit records %v, want PRs 3 to 5 only", audits)
	}
	cloud, err := filepath.Glob(filepath.Join(dir, "sim", "repo.186853002", "cloud", "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cloud) != 3 {
		t.Errorf("the cloud holds %v, want the three Vms applied, once each", cloud)
	}
	if keys := s.Keys(t, bucket, "kyku-bot/leases/"); len(keys) != 0 {
		t.Errorf("leases left behind: %v", keys)
	}
}
