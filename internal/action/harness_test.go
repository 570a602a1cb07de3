package action_test

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/kyku/action/internal/action"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/github/webhooktest"
	"github.com/kyku/action/internal/golden"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/workspace"
	"github.com/kyku/action/internal/workspace/awsstore"
)

const (
	repoName   = "Codertocat/Hello-World" // the payloads' repository
	defaultRef = "master"                 // the payloads' default branch
	configPath = "infra/kyku.yaml"
	envName    = "prod"
	secret     = "s3cr3t-user-data"
	runID      = "4242"
	runURL     = "https://github.com/" + repoName + "/actions/runs/" + runID
	pushBefore = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e" // push.json's "before": the default branch before the push
)

// repoRoot is the directory holding go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's directory")
		}
		dir = parent
	}
}

// payload reads one of the repository's webhook payloads ("push.json" or
// "push") and applies mutate to its decoded JSON.
func payload(t *testing.T, name string, mutate func(map[string]any)) map[string]any {
	t.Helper()
	return webhooktest.Decode(t, name, mutate)
}

// obj walks into nested objects of a decoded payload.
var obj = webhooktest.Object

// backendYAML is the backend block: the real S3 server from .ci/run when
// KYKU_TEST_S3_ENDPOINT is set, else local state in the checkout.
func backendYAML(t *testing.T, getenv map[string]string) string {
	t.Helper()
	endpoint := os.Getenv("KYKU_TEST_S3_ENDPOINT")
	if endpoint == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but KYKU_TEST_S3_ENDPOINT is not set: .ci/run starts the S3 server (.ci/s3-server.sh)")
		}
		return "backend: { type: local, path: .kyku-state }\n"
	}
	access, secretKey := os.Getenv("KYKU_TEST_S3_ACCESS_KEY"), os.Getenv("KYKU_TEST_S3_SECRET_KEY")
	region := os.Getenv("KYKU_TEST_S3_REGION")
	if region == "" {
		region = "us-east-1"
	}
	bucket := "kyku-action-" + randHex(t, 6)
	client := awss3.New(awss3.Options{
		Region: region, BaseEndpoint: aws.String(endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(access, secretKey, ""),
	})
	if _, err := client.CreateBucket(t.Context(), &awss3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("create bucket %s: %v", bucket, err)
	}
	// The AWS SDK reads its credentials from the process, as on a runner.
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": access, "AWS_SECRET_ACCESS_KEY": secretKey, "AWS_REGION": region, "AWS_EC2_METADATA_DISABLED": "true"} {
		t.Setenv(k, v)
		getenv[k] = v
	}
	return fmt.Sprintf("backend: { type: s3, bucket: %s, prefix: infra, region: %s, endpoint: %q, usePathStyle: true }\n", bucket, region, endpoint)
}

func randHex(t *testing.T, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// fixture is one test's runner: a fake GitHub API, the sim's cloud, a
// checkout, a backend, and the environment a runner gives the Action.
type fixture struct {
	t        *testing.T
	srv      *githubtest.Server
	dir      string // everything on disk
	checkout string // GITHUB_WORKSPACE
	simDir   string
	backend  string // the config's backend block
	base     map[string]string
	clock    time.Time
	runs     int
	mu       sync.Mutex
	// providers, when set, are the Action's providers (default: the sim).
	providers provider.Registry
	// cloud and tfLock, when set, are the Terraform roots' test
	// provider's cloud and lock file (roots_test.go).
	cloud, tfLock string
	// version is the Action's Kyku version (Env.Version).
	version string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{
		t: t, srv: githubtest.NewServer(t), dir: dir,
		checkout: filepath.Join(dir, "checkout"), simDir: filepath.Join(dir, "sim"),
		clock: time.Date(2025, 6, 1, 6, 0, 0, 0, time.UTC),
	}
	f.srv.AddRepo(repoName, defaultRef)
	f.base = map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_REPOSITORY":   repoName,
		"GITHUB_SERVER_URL":   "https://github.com",
		"GITHUB_API_URL":      f.srv.APIURL(),
		"GITHUB_RUN_ID":       runID,
		"GITHUB_WORKSPACE":    f.checkout,
		"RUNNER_TEMP":         filepath.Join(dir, "runner-temp"),
		"KYKU_SIM_DIR":        f.simDir,
		"INPUT_CONFIG":        configPath,
		"INPUT_ENVIRONMENT":   envName,
		"INPUT_GITHUB-TOKEN":  githubtest.Token,
		"INPUT_COMMAND":       "auto",
		"INPUT_COMMENT":       "sticky",
		"INPUT_PARALLELISM":   "4",
		"INPUT_FAIL-ON-DRIFT": "false",
		"GITHUB_WORKFLOW_REF": repoName + "/" + workflowFile + "@refs/heads/" + defaultRef,
		// The tests keep state in the checkout (without the S3 server),
		// which the Action refuses unless told (localstate_test.go).
		"INPUT_LOCAL-STATE": "allow",
	}
	f.backend = backendYAML(t, f.base)
	// The workflow this run starts from is the same before and after the
	// merges of the tests (push.json's before, the merge commit).
	f.setWorkflow(workflowYAML, pushBefore, mergeSHA)
	return f
}

// workflowFile is the workflow the Action runs in (GITHUB_WORKFLOW_REF);
// its inputs are the Action's review rules.
const (
	workflowFile = ".github/workflows/kyku.yml"
	workflowYAML = "on: [pull_request, push, issue_comment]\njobs:\n  kyku:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: kyku/action@v1\n        with: { required-approvals: 2 }\n"
)

// setWorkflow makes yaml the workflow file at refs.
func (f *fixture) setWorkflow(yaml string, refs ...string) {
	for _, ref := range refs {
		f.srv.SetFile(repoName, ref, workflowFile, []byte(yaml))
	}
}

// config is a configuration with the fixture's backend and the given Vms.
func (f *fixture) config(vms ...string) string {
	var b strings.Builder
	b.WriteString("provider: sim\n" + f.backend + "resources:\n")
	for _, vm := range vms {
		size := "small"
		name, s, ok := strings.Cut(vm, ":")
		if ok {
			size = s
		}
		fmt.Fprintf(&b, "  %s:\n    type: Vm\n    properties: { image: debian-12, size: %s, userData: %s }\n", name, size, secret)
	}
	return b.String()
}

// setCheckout writes the configuration in the checkout (what
// actions/checkout put there: the default branch on push, schedule and
// issue_comment).
func (f *fixture) setCheckout(yaml string) {
	f.t.Helper()
	p := filepath.Join(f.checkout, filepath.FromSlash(configPath))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// setRef makes the configuration the content of a commit (or branch) on
// the fake GitHub, for the tarball API.
func (f *fixture) setRef(ref, yaml string) {
	f.srv.SetFile(repoName, ref, configPath, []byte(yaml))
	f.srv.SetFile(repoName, ref, "README.md", []byte("hello\n"))
	f.srv.SetFile(repoName, ref, workflowFile, []byte(workflowYAML))
}

// result is what one run left behind.
type result struct {
	code    int
	stdout  string
	outputs map[string]string
	summary string
}

// run runs the Action for one event as the runner does.
func (f *fixture) run(eventName string, ev map[string]any, extra map[string]string) result {
	f.t.Helper()
	f.mu.Lock()
	f.runs++
	n := f.runs
	f.mu.Unlock()
	runDir := filepath.Join(f.dir, fmt.Sprintf("run-%d", n))
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		f.t.Fatal(err)
	}
	env := map[string]string{}
	for k, v := range f.base {
		env[k] = v
	}
	for k, v := range extra {
		env[k] = v
	}
	data, err := json.Marshal(ev)
	if err != nil {
		f.t.Fatal(err)
	}
	eventPath := filepath.Join(runDir, "event.json")
	must(f.t, os.WriteFile(eventPath, data, 0o644))
	env["GITHUB_EVENT_NAME"] = eventName
	env["GITHUB_EVENT_PATH"] = eventPath
	env["GITHUB_OUTPUT"] = filepath.Join(runDir, "output")
	env["GITHUB_STEP_SUMMARY"] = filepath.Join(runDir, "summary.md")
	for _, k := range []string{"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"} {
		must(f.t, os.WriteFile(env[k], nil, 0o644))
	}
	providers := f.providers
	if providers == nil {
		providers = provider.Registry{"sim": sim.Factory}
	}
	var stdout bytes.Buffer
	code := action.Run(f.t.Context(), action.Env{
		Getenv: func(k string) string { return env[k] },
		Environ: func() []string {
			var out []string
			for k, v := range env {
				out = append(out, k+"="+v)
			}
			slices.Sort(out)
			return out
		},
		Stdout:    &stdout,
		Now:       f.now,
		Providers: providers,
		Rand:      mrand.NewChaCha8([32]byte{byte(n)}),
		Version:   f.version,
	})
	out, err := os.ReadFile(env["GITHUB_OUTPUT"])
	must(f.t, err)
	summary, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	must(f.t, err)
	return result{code: code, stdout: stdout.String(), outputs: parseOutputs(f.t, string(out)), summary: string(summary)}
}

func (f *fixture) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.clock = f.clock.Add(time.Second)
	return f.clock
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// parseOutputs reads GITHUB_OUTPUT's "name<<DELIM\nvalue\nDELIM" records.
func parseOutputs(t *testing.T, s string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		if lines[i] == "" {
			continue
		}
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			t.Fatalf("GITHUB_OUTPUT line %q is not name<<delimiter", lines[i])
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}

// workspace opens the backend the configuration names, to inspect it.
func (f *fixture) backendStore() statemgr.Backend {
	f.t.Helper()
	cfg, err := config.Parse([]config.File{{Name: "x.yaml", Data: []byte(f.config("web"))}})
	must(f.t, err)
	b, err := workspace.OpenBackend(f.t.Context(), cfg.Backend, f.settings())
	must(f.t, err)
	return b
}

// settings open the fixture's workspace as the Action does: its
// environment, its base directory, the s3 backend through the AWS SDK.
func (f *fixture) settings() workspace.Settings {
	return workspace.Settings{
		Env: envName, BaseDir: f.configDir(), Getenv: func(k string) string { return f.base[k] }, AWS: awsstore.Store{},
	}
}

// configDir is the configuration's directory in the checkout: local state
// lives there.
func (f *fixture) configDir() string {
	return filepath.Join(f.checkout, filepath.FromSlash(path.Dir(configPath)))
}

// serial is the state's serial (0 without state).
func (f *fixture) serial() int64 {
	f.t.Helper()
	st, err := f.backendStore().Read(f.t.Context())
	must(f.t, err)
	if st == nil {
		return 0
	}
	return st.Metadata.Serial
}

// nothingApplied checks that run r applied nothing to a state at serial
// before with an empty cloud.
func (f *fixture) nothingApplied(t *testing.T, r result, before int64) {
	t.Helper()
	wantOutputs(t, r, map[string]string{"applied": "false"})
	if got := f.serial(); got != before {
		t.Errorf("state serial %d → %d: something was applied", before, got)
	}
	if n := len(f.cloudObjects(t)); n != 0 {
		t.Errorf("the cloud has %d objects, want none", n)
	}
}

var (
	hexRE    = regexp.MustCompile(`\b[0-9a-f]{64}\b`)
	bucketRE = regexp.MustCompile(`kyku-action-[0-9a-f]{12}`)
	stampRE  = regexp.MustCompile(`\d{8}T\d{6}\.\d{3}Z`) // backup keys: the backend's own clock
	simIDRE  = regexp.MustCompile(`\b1000\d{4}\b`)       // the sim's IDs: creation order varies with parallelism
)

// golden compares got with testdata/name (rewritten with -update), after
// replacing what differs between backends (digests, bucket names) and the
// test's temp directory.
func (f *fixture) golden(name, got string) {
	f.t.Helper()
	got = strings.ReplaceAll(got, f.dir, "<tmp>")
	got = strings.ReplaceAll(got, f.srv.URL, "http://github.test")
	got = bucketRE.ReplaceAllString(got, "<bucket>")
	got = hexRE.ReplaceAllString(got, "<sha256>")
	got = stampRE.ReplaceAllString(got, "<time>")
	got = simIDRE.ReplaceAllString(got, "<id>")
	golden.Check(f.t, name, got)
}
