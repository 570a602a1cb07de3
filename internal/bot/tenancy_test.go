package bot_test

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

// otherRepo is a second repository, with its own numeric ID (its
// namespace, otherNamespace, is keyed by it).
const (
	otherRepo      = "Codertocat/Other"
	otherID        = 186853777
	otherNamespace = "repo.186853777"
)

// addOtherRepo installs the App on a second repository of the same owner,
// with config (default branch) and head (PR #5 at headA).
func (h *harness) addOtherRepo(config, head string) {
	h.gh.AddRepo(otherRepo, defaultBranch)
	h.gh.SetRepoID(otherRepo, otherID, repoCreated)
	h.gh.AddInstallation(installation, "Codertocat", repoName, otherRepo)
	h.gh.SetFile(otherRepo, defaultBranch, "kyku.yaml", []byte(config))
	h.gh.SetFile(otherRepo, headA, "kyku.yaml", []byte(head))
	h.gh.AddPullRequest(otherRepo, githubtest.PullRequest{Number: 5, User: "author", HeadSHA: headA, Files: []string{"kyku.yaml"}})
}

// otherOpened is pull_request.opened on the second repository.
func otherOpened(t *testing.T) []byte {
	return fixture(t, "pull_request.opened.with-organization", func(p map[string]any) {
		p["number"] = 5
		r := obj(p, "repository")
		r["name"], r["full_name"], r["id"] = "Other", otherRepo, otherID
		pr := obj(p, "pull_request")
		pr["number"] = 5
		obj(pr, "head")["sha"] = headA
		obj(pr, "head", "repo")["full_name"] = otherRepo
		obj(p, "installation")["id"] = installation
	})
}

// checkRun is the repository's only plan check run.
func (h *harness) checkRun(repo string) githubtest.CheckRun {
	h.t.Helper()
	runs := h.gh.CheckRuns(repo)
	if len(runs) != 1 {
		h.t.Fatalf("check runs of %s: %+v, want one", repo, runs)
	}
	return runs[0]
}

// files lists the regular files under dir, relative, sorted.
func files(t *testing.T, dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// snapshot is every regular file under dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	for _, f := range files(t, dir) {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		out[f] = string(data)
	}
	return out
}

// TestRepositoryCannotReachAnotherRepositorysState: two repositories of
// one installation. The second one's config points its backend at the
// first one's state (".." or an absolute path): refused with the config's
// file and line in the check run, and the first one's state is untouched.
// A plain config keeps its state under its own namespace.
func TestRepositoryCannotReachAnotherRepositorysState(t *testing.T) {
	for _, tc := range []struct{ name, backend, want string }{
		{"climbing out", "backend: { type: local, path: ../" + namespace + " }\n", `backend path: "../repo.186853002" climbs out of the repository's namespace repo.186853777/`},
		{"absolute", "backend: { type: local, path: /etc }\n", `backend path: "/etc" is absolute`},
		{"own namespace", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			h.pr(2, headA)
			h.deliver("pull_request", prOpened(t, 2, headA))
			h.settle()
			mine := filepath.Join(h.stateDir, namespace)
			before := files(t, mine)
			if len(before) == 0 {
				t.Fatal("the first repository's plan saved nothing under its namespace")
			}
			contents := snapshot(t, mine)

			h.addOtherRepo(tc.backend+configV1, tc.backend+configV2)
			h.deliver("pull_request", otherOpened(t))
			h.settle()
			run := h.checkRun(otherRepo)
			if tc.want != "" {
				if run.Conclusion != "failure" || !strings.Contains(run.Summary, "kyku.yaml:1:") || !strings.Contains(run.Summary, tc.want) {
					t.Errorf("check run %s: %s\n%s, want a failure saying %s", run.Name, run.Title, run.Summary, tc.want)
				}
			} else if run.Conclusion != "success" {
				t.Fatalf("check run %+v, want success", run)
			}
			if !maps.Equal(contents, snapshot(t, mine)) {
				t.Errorf("the first repository's objects changed:\nbefore %v\nafter %v", before, files(t, mine))
			}
			theirs := files(t, filepath.Join(h.stateDir, otherNamespace))
			if all := files(t, h.stateDir); len(all) != len(before)+len(theirs) {
				t.Errorf("state written outside the namespaces: %v", all)
			}
			if tc.want == "" && !slices.Contains(theirs, "plans/default/pr-5-"+headA+".json") {
				t.Errorf("the second repository's state is not under its namespace: %v", theirs)
			}
		})
	}
}

// TestRepositoriesShareABucketWithoutSharingKeys: two repositories name
// the same bucket and prefix in S3; their keys land under their own
// namespaces, and a prefix that climbs into the other's is refused.
func TestRepositoriesShareABucketWithoutSharingKeys(t *testing.T) {
	s := s3test.Require(t)
	bucket := s.NewBucket(t)
	t.Setenv("AWS_ACCESS_KEY_ID", s.Access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s.Secret)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	backend := func(prefix string) string {
		return fmt.Sprintf("backend:\n  type: s3\n  bucket: %s\n  prefix: %s\n  region: %s\n  endpoint: %s\n  usePathStyle: true\n", bucket, prefix, s.Region, s.Endpoint)
	}
	h := newHarness(t, harnessOpts{backend: backend("shared"), policy: testPolicy(bucket)})
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.addOtherRepo(configV1+backend("shared"), configV2+backend("shared"))
	h.deliver("pull_request", otherOpened(t))
	h.settle()
	keys := s.Keys(t, bucket, "")
	for _, want := range []string{
		namespace + "/shared/plans/default/pr-2-" + headA + ".json",
		otherNamespace + "/shared/plans/default/pr-5-" + headA + ".json",
	} {
		if !slices.Contains(keys, want) {
			t.Errorf("no %s in %v", want, keys)
		}
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, namespace+"/shared/") && !strings.HasPrefix(k, otherNamespace+"/shared/") {
			t.Errorf("key %s outside both namespaces", k)
		}
	}

	h.gh.SetFile(otherRepo, headB, "kyku.yaml", []byte(configV2+backend("../"+namespace+"/shared")))
	h.gh.UpdatePullRequest(otherRepo, 5, func(p *githubtest.PullRequest) { p.HeadSHA = headB })
	h.gh.SetFile(otherRepo, defaultBranch, "kyku.yaml", []byte(configV1+backend("../"+namespace+"/shared")))
	h.deliver("pull_request", fixtureAction(t, otherOpened(t), "synchronize"))
	h.settle()
	runs := h.gh.CheckRuns(otherRepo)
	if last := runs[len(runs)-1]; last.Conclusion != "failure" || !strings.Contains(last.Summary, "climbs out") {
		t.Errorf("check run %+v, want a failure: the prefix climbs out", last)
	}
}

// TestOverridesRefusedWithoutPolicy: without an operator policy the sim
// (whose dir writes files on the bot's host) and endpoint overrides are
// refused, each with a clear error in the check run.
func TestOverridesRefusedWithoutPolicy(t *testing.T) {
	h := newHarness(t, harnessOpts{policy: noPolicy})
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	run := h.checkRun(repoName)
	if run.Conclusion != "failure" {
		t.Errorf("check run %+v, want the sim refused", run)
	}
	h.wantConversation(2, "sim-without-a-policy") // the sim is not allowed without KYKU_BOT_POLICY
	if dirs := h.openedSimDirs(); len(dirs) != 0 || len(h.opened()) != 0 {
		t.Errorf("opened %v / %v anyway", dirs, h.opened())
	}
}

// TestEndpointAndProfileOverridesRefused: a repository may not point Kyku
// at an internal address or pick one of the bot host's AWS profiles unless
// the policy says so.
func TestEndpointAndProfileOverridesRefused(t *testing.T) {
	strict := "repositories:\n  - match: [\"Codertocat/*\"]\n    providers: [sim]\n    buckets: [{ name: acme-state }]\n"
	for _, tc := range []struct{ name, config, want string }{
		{"provider endpoint", "provider: { name: sim, endpoint: \"http://169.254.169.254/\" }\n", "provider setting endpoint is not allowed for Codertocat/Hello-World by the bot's policy"},
		{"provider profile", "provider: { name: sim, profile: admin }\n", "provider setting profile is not allowed"},
		{"backend endpoint", "backend: { type: s3, bucket: acme-state, region: eu-west-1, endpoint: \"http://10.0.0.1:9000\" }\n", "backend endpoint is not allowed"},
		{"bucket of another tenant", "backend: { type: s3, bucket: globex-state, region: eu-west-1 }\n", `bucket "globex-state" is not granted to Codertocat/Hello-World`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{policy: strict})
			h.gh.SetFile(repoName, defaultBranch, "kyku.yaml", []byte(tc.config+configV1))
			h.gh.SetFile(repoName, headA, "kyku.yaml", []byte(tc.config+configV2))
			h.pr(2, headA)
			h.deliver("pull_request", prOpened(t, 2, headA))
			h.settle()
			if run := h.checkRun(repoName); run.Conclusion != "failure" || !strings.Contains(run.Summary, tc.want) {
				t.Errorf("check run %+v, want a failure saying %s", run, tc.want)
			}
			h.wantConversation(2, "override-refused-"+strings.ReplaceAll(tc.name, " ", "-")) // at kyku.yaml:1
			if len(h.opened()) != 0 {
				t.Error("a workspace was opened anyway")
			}
		})
	}
}

// openedSimDirs lists the sim directories opened so far.
func (h *harness) openedSimDirs() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.simDirs)
}

// TestSimDirCannotEscape: the sim's dir setting wrote files wherever a
// config said. It is refused when absolute or climbing, and otherwise
// lives under the repository's namespace.
func TestSimDirCannotEscape(t *testing.T) {
	escape := filepath.Join(t.TempDir(), "escaped")
	for _, tc := range []struct{ name, dir, want string }{
		{"absolute", escape, "is absolute"},
		{"climbing", "../../../escaped", "climbs out"},
		{"inside", "cloud", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			cfg := "provider: { name: sim, dir: \"" + tc.dir + "\" }\n"
			h.gh.SetFile(repoName, defaultBranch, "kyku.yaml", []byte(cfg+configV1))
			h.gh.SetFile(repoName, headA, "kyku.yaml", []byte(cfg+configV2))
			h.pr(2, headA)
			h.deliver("pull_request", prOpened(t, 2, headA))
			h.settle()
			run := h.checkRun(repoName)
			if tc.want != "" {
				if run.Conclusion != "failure" || !strings.Contains(run.Summary, "provider setting dir: ") || !strings.Contains(run.Summary, tc.want) {
					t.Errorf("check run %+v, want a failure saying %s", run, tc.want)
				}
			} else if run.Conclusion != "success" {
				t.Errorf("check run %+v, want success", run)
			}
			for _, d := range h.openedSimDirs() {
				if d != filepath.Join(h.simDir, namespace, "cloud") {
					t.Errorf("sim opened at %s, outside %s", d, filepath.Join(h.simDir, namespace))
				}
			}
			if _, err := os.Stat(escape); err == nil {
				t.Errorf("%s was created", escape)
			}
		})
	}
}

// TestPolicyRoleIsAssumedForTheRepository: the policy names an IAM role
// for the bucket; the bot assumes it through STS (the real STS client
// against an httptest endpoint) with a session name naming the repository,
// and hands its credentials to the opener. Needs the S3 server.
func TestPolicyRoleIsAssumedForTheRepository(t *testing.T) {
	s := s3test.Require(t)
	bucket := s.NewBucket(t)
	t.Setenv("AWS_ACCESS_KEY_ID", s.Access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s.Secret)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	const role = "arn:aws:iam::123456789012:role/kyku-codertocat"
	pol := "repositories:\n  - match: [\"Codertocat/*\"]\n    providers: [sim]\n    allow-endpoint: true\n" +
		"    buckets: [{ name: " + bucket + ", role: \"" + role + "\" }]\n"
	sts := newFakeSTS(t, "ASIAROLEKEY", "role-secret")
	backend := fmt.Sprintf("backend:\n  type: s3\n  bucket: %s\n  region: %s\n  endpoint: %s\n  usePathStyle: true\n", bucket, s.Region, s.Endpoint)
	h := newHarness(t, harnessOpts{backend: backend, policy: pol, sts: sts})
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	if run := h.checkRun(repoName); run.Conclusion != "success" {
		t.Fatalf("check run %+v", run)
	}
	opened := h.opened()
	if len(opened) == 0 || opened[0].Credentials == nil {
		t.Fatalf("tenants %+v, want the role's credentials", opened)
	}
	creds, err := opened[0].Credentials.Retrieve(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if creds.AccessKeyID != "ASIAROLEKEY" || creds.SessionToken != "session-token" {
		t.Errorf("credentials %+v, want the role's", creds)
	}
	if got := sts.assumed(); len(got) != 1 || got[0] != [2]string{role, "kyku@Codertocat.Hello-World"} {
		t.Errorf("AssumeRole calls %v, want one for %s as kyku@Codertocat.Hello-World", got, role)
	}
}

// countingBody is a request body of n zero bytes that counts what was read.
type countingBody struct {
	n, read atomic.Int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	left := c.n.Load() - c.read.Load()
	if left <= 0 {
		return 0, io.EOF
	}
	k := int(min(int64(len(p)), left))
	clear(p[:k])
	c.read.Add(int64(k))
	return k, nil
}

// readCounter counts what a handler reads of a request body.
type readCounter struct {
	io.ReadCloser
	n *atomic.Int64
}

func (r readCounter) Read(p []byte) (int, error) {
	k, err := r.ReadCloser.Read(p)
	r.n.Add(int64(k))
	return k, err
}

// TestUnsignedBodyIsNotRead: a 30 MB body without a valid signature
// header, or declaring more than 25 MB, is answered before the bot reads
// any of it (it used to read 25 MB, then check the signature).
func TestUnsignedBodyIsNotRead(t *testing.T) {
	const size = 30 << 20
	h := newHarness(t, harnessOpts{})
	var read atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = readCounter{r.Body, &read}
		h.bot.Handler().ServeHTTP(w, r)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name   string
		sig    string
		length int64 // -1: chunked
		want   int
	}{
		{"no signature, chunked", "", -1, http.StatusUnauthorized},
		{"malformed signature", "sha256=nothex", -1, http.StatusUnauthorized},
		{"declared too large", "sha256=" + strings.Repeat("ab", 32), size, http.StatusRequestEntityTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read.Store(0)
			body := &countingBody{}
			body.n.Store(size)
			req, err := http.NewRequest("POST", srv.URL+"/webhook", body)
			if err != nil {
				t.Fatal(err)
			}
			req.ContentLength = tc.length
			req.Header.Set("X-GitHub-Event", "pull_request")
			req.Header.Set("X-GitHub-Delivery", "big")
			if tc.sig != "" {
				req.Header.Set("X-Hub-Signature-256", tc.sig)
			}
			resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.want)
			}
			if n := read.Load(); n != 0 {
				t.Errorf("the bot read %d bytes of the body, want none", n)
			}
		})
	}
}

// TestConfigFileNameCannotInjectMarkdown: a pull request adds a config
// file whose name closes a code fence and writes a heading and a mention.
// The check run keeps every byte of it inside a code block.
func TestConfigFileNameCannotInjectMarkdown(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte("projects:\n  - config: infra\n"))
	h.gh.SetFile(repoName, defaultBranch, "infra/main.yaml", []byte(configV1))
	evil := "infra/x\n```\n## Injected heading @everyone\n[click](https://evil.example)\n```.yaml"
	h.gh.SetFile(repoName, headA, "infra/main.yaml", []byte(configV2))
	h.gh.SetFile(repoName, headA, evil, []byte("resources:\n  web: [\n"))
	h.gh.AddPullRequest(repoName, githubtest.PullRequest{Number: 2, User: "author", HeadSHA: headA, Files: []string{"infra/main.yaml"}})
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	run := h.checkRun(repoName)
	if run.Conclusion != "failure" {
		t.Fatalf("check run %+v, want the config error", run)
	}
	h.wantConversation(2, "config-file-name-injection") // naming the file, inside a code block
	for _, line := range outsideFences(run.Summary) {
		if strings.Contains(line, "Injected") || strings.Contains(line, "evil.example") {
			t.Errorf("repository text rendered as markdown: %q\n%s", line, run.Summary)
		}
	}
}

// outsideFences lists the lines of md outside fenced code blocks, by the
// CommonMark rule: a fence of 3+ backticks or tildes (up to 3 spaces in)
// is closed by a line of the same character, at least as long, alone.
func outsideFences(md string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		run := func() string {
			if trimmed == "" || (trimmed[0] != '`' && trimmed[0] != '~') {
				return ""
			}
			n := 0
			for n < len(trimmed) && trimmed[n] == trimmed[0] {
				n++
			}
			if n < 3 {
				return ""
			}
			return trimmed[:n]
		}()
		switch {
		case fence == "" && indent <= 3 && run != "" && !(run[0] == '`' && strings.Contains(trimmed[len(run):], "`")):
			fence = run
		case fence != "" && indent <= 3 && run != "" && run[0] == fence[0] && len(run) >= len(fence) && strings.TrimSpace(trimmed[len(run):]) == "":
			fence = ""
		case fence == "":
			out = append(out, line)
		}
	}
	return out
}
