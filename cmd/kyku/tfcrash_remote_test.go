package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr/gcs/gcstest"
	"github.com/kyku/action/internal/statemgr/httpstate/httpstatetest"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestCrashOnTofuStateInS3: TestCrashOnTofuState's shape on a Terraform
// state in an s3 backend (the S3 server): applies SIGKILLed with their
// process group while creating; the journal keepers keep the answers of
// the creates in flight in this machine's answer box for that state
// (under XDG_STATE_HOME, not in the root), and after each kill a plan
// refuses nothing, once the dead apply's lock is removed (force-unlock,
// as its message says). The last apply completes: every instance once in the
// state, each the cloud's object, none made twice, no process left, no
// answer left; tofu (KYKU_TEST_TOFU) reads the state after each kill.
func TestCrashOnTofuStateInS3(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("process test")
	}
	srv := s3test.Require(t)
	bucket := srv.NewBucket(t)
	crashOnRemoteTofuState(t, remoteTofuState{
		backend: fmt.Sprintf(`  backend "s3" {
    bucket         = %q
    key            = "estate/terraform.tfstate"
    region         = %q
    endpoints      = { s3 = %q }
    use_path_style = true
    use_lockfile   = true
  }`, bucket, srv.Region, srv.Endpoint),
		env:   srv.Env(),
		state: func(t *testing.T) []byte { return srv.Object(t, bucket, "estate/terraform.tfstate") },
	})
}

// TestCrashOnTofuStateInGCS: TestCrashOnTofuStateInS3 on a Terraform state
// in a gcs backend (the GCS emulator): its lock object outlives a
// SIGKILL as the S3 lockfile does. Kyku reaches the emulator as OpenTofu
// would a Private Service Connect endpoint: through the block's
// storage_custom_endpoint (a proxy under a base path that answers only
// requests bearing the block's access_token), with no
// STORAGE_EMULATOR_HOST and no Google credentials; the token is in no
// output and no object in the bucket.
func TestCrashOnTofuStateInGCS(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("process test")
	}
	srv := gcstest.Require(t)
	bucket := srv.NewBucket(t)
	const token = "ya29.kyku-test-token"
	endpoint, bearers := bearerProxy(t, "http://"+srv.Host, token)
	crashOnRemoteTofuState(t, remoteTofuState{
		backend: fmt.Sprintf(`  backend "gcs" {
    bucket                  = %q
    prefix                  = "estate"
    access_token            = %q
    storage_custom_endpoint = "%s/storage/v1/b"
  }`, bucket, token, endpoint),
		env:    []string{"STORAGE_EMULATOR_HOST=", "GOOGLE_APPLICATION_CREDENTIALS=/nonexistent"},
		secret: token,
		state: func(t *testing.T) []byte {
			t.Helper()
			data, _, err := srv.Get(t.Context(), bucket, "estate/default.tfstate")
			if err != nil {
				t.Fatalf("get the state: %v", err)
			}
			return data
		},
	})
	if n := bearers.Load(); n == 0 {
		t.Error("no request reached the storage_custom_endpoint")
	}
	for name, data := range srv.Objects(t, bucket, "") {
		if strings.Contains(string(data), token) {
			t.Errorf("the access token is in gs://%s/%s", bucket, name)
		}
	}
}

// TestCrashOnTofuStateInHTTP: TestCrashOnTofuStateInS3 on a Terraform
// state in an http backend (httpstatetest, OpenTofu's protocol with LOCK
// and UNLOCK under a base path, basic auth): the lock the killed apply
// took stays on the server as the S3 lockfile does, removed as its
// message says; the password (TF_HTTP_PASSWORD) is in no output.
func TestCrashOnTofuStateInHTTP(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("process test")
	}
	srv := httpstatetest.New(t)
	srv.Username, srv.Password = "kyku", "http-test-password"
	addr := srv.URL + "estate"
	crashOnRemoteTofuState(t, remoteTofuState{
		backend: fmt.Sprintf(`  backend "http" {
    address        = %q
    lock_address   = %q
    unlock_address = %q
    username       = "kyku"
  }`, addr, addr, addr),
		env:    []string{"TF_HTTP_PASSWORD=" + srv.Password},
		secret: srv.Password,
		state: func(t *testing.T) []byte {
			t.Helper()
			data := srv.Document("estate")
			if data == nil {
				t.Fatal("no state on the server")
			}
			return data
		},
	})
	if held := srv.Lock("estate"); held != nil {
		t.Errorf("the state is still locked: %s", held)
	}
}

// bearerProxy is an endpoint under a base path that passes to upstream
// the requests bearing token, counted, and refuses the others.
func bearerProxy(t *testing.T, upstream, token string) (endpoint string, bearers *atomic.Int64) {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	bearers = new(atomic.Int64)
	srv := httptest.NewServer(http.StripPrefix("/psc", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, `{"error":{"code":401,"message":"no bearer token"}}`, http.StatusUnauthorized)
			return
		}
		bearers.Add(1)
		proxy.ServeHTTP(w, r)
	})))
	t.Cleanup(srv.Close)
	return srv.URL + "/psc", bearers
}

// remoteTofuState is where crashOnRemoteTofuState keeps the Terraform
// state: the root's backend block, the environment that reaches it, and
// how to read the state (written to a file for tofu and the checks).
type remoteTofuState struct {
	backend string
	env     []string
	state   func(t *testing.T) []byte
	// secret, when set, must be in no output of kyku's.
	secret string
}

func crashOnRemoteTofuState(t *testing.T, rs remoteTofuState) {
	root := filepath.Join(t.TempDir(), "root")
	if err := os.MkdirAll(filepath.Join(root, "cloud"), 0o755); err != nil {
		t.Fatal(err)
	}
	const n = 60
	tf := fmt.Sprintf(`terraform {
  required_providers {
    fwtest = { source = "kyku/fwtest", version = "0.1.0" }
  }
%s
}

provider "fwtest" {
  dir = "${path.module}/cloud"
}

resource "fwtest_item" "bulk" {
  count = %d
  name  = "bulk-${count.index}"
  value = "v1"
}
`, rs.backend, n)
	if err := os.WriteFile(filepath.Join(root, "main.tf"), []byte(tf), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	p0 := &project{t: t, dir: root, env: append(append([]string(nil), rs.env...),
		"KYKU_PLUGIN_MIRROR="+tfplugintest.Mirror(t, t.TempDir(), tfplugintest.Framework),
		"KYKU_RETRY_BASE=1ms", "NO_COLOR=1", "XDG_STATE_HOME="+home,
	)}
	p := &secretProject{project: p0, secret: rs.secret}
	if code, out := p.run("init", "-c", root); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, out)
	}
	bulk := func() int {
		objs, _ := filepath.Glob(filepath.Join(root, "cloud", "bulk-*.json"))
		return len(objs)
	}
	kills, kept, unlocks := 0, 0, 0
	for _, at := range []int{5, 20, 35, 50} {
		if killApplyAt(t, p.project, bulk, at, "apply", "--auto-approve", "--parallelism", "4", "-c", root) {
			kills++
		}
		waitNoProcessIn(t, root)
		statePath := stateFile(t, rs.state(t))
		tofuReads(t, statePath)
		answers := boxAnswers(t, home)
		kept += len(answers)
		t.Logf("killed at %d bulk objects: %d answers kept", bulk(), len(answers))
		// The killed apply's lock stays in the bucket (OpenTofu's
		// lockfile has no heartbeat to tell it dead): removed as its
		// message says, the one user step.
		code, out := p.run("plan", "--lock-timeout", "0s", "-c", root)
		if m := forceUnlockRE.FindStringSubmatch(out); code != 0 && m != nil {
			if code, out := p.run("force-unlock", "--force", m[1], "-c", root); code != 0 {
				t.Fatalf("force-unlock: exit %d\n%s", code, tail(out))
			}
			unlocks++
			code, out = p.run("plan", "-c", root)
		}
		if code != 0 {
			t.Fatalf("plan after a kill: exit %d\n%s", code, tail(out))
		}
	}
	if kills == 0 {
		t.Fatal("no apply was killed")
	}
	if unlocks == 0 {
		t.Error("no plan after a kill was refused for the killed apply's lock, naming kyku force-unlock")
	}
	if code, out := p.run("apply", "--auto-approve", "-c", root); code != 0 {
		t.Fatalf("apply after crashes: exit %d\n%s", code, tail(out))
	}
	waitNoProcessIn(t, root)
	statePath := stateFile(t, rs.state(t))
	tofuReads(t, statePath)
	st := readTofuState(t, statePath)
	ids := map[string]bool{}
	for _, r := range st.Resources {
		for _, in := range r.Instances {
			var attrs struct{ ID string }
			if err := json.Unmarshal(in.Attributes, &attrs); err != nil {
				t.Fatal(err)
			}
			if ids[attrs.ID] || in.Deposed != "" {
				t.Errorf("%s is in the state twice", attrs.ID)
			}
			ids[attrs.ID] = true
		}
	}
	if len(ids) != n {
		t.Errorf("the state holds %d instances, want %d", len(ids), n)
	}
	if got := bulk(); got != n {
		t.Errorf("the cloud holds %d bulk objects, want %d: one per instance", got, n)
	}
	objs, _ := filepath.Glob(filepath.Join(root, "cloud", "bulk-*.json"))
	for _, f := range objs {
		if id := strings.TrimSuffix(filepath.Base(f), ".json"); !ids[id] {
			t.Errorf("object %s in the cloud is in no state", id)
		}
	}
	if code, out := p.run("plan", "--detailed-exitcode", "-c", root); code != 0 {
		t.Errorf("plan after the apply completed: exit %d, want 0\n%s", code, tail(out))
	}
	if answers := boxAnswers(t, home); len(answers) > 0 {
		t.Errorf("%d kept answers left after the apply completed", len(answers))
	}
	if kept == 0 {
		t.Error("no answer was kept: no kill came while a create was in flight")
	}
	if _, err := os.Stat(filepath.Join(root, ".kyku")); err == nil {
		if left, _ := filepath.Glob(filepath.Join(root, ".kyku", "*answers*")); len(left) > 0 {
			t.Errorf("answers kept in the root (a checkout): %v", left)
		}
	}
	t.Logf("%d applies killed, %d answers of creates in flight kept and folded, %d locks forced", kills, kept, unlocks)
}

// secretProject runs kyku as project does, failing the test when an
// output holds the secret.
type secretProject struct {
	*project
	secret string
}

func (p *secretProject) run(args ...string) (int, string) {
	p.t.Helper()
	code, out := p.project.run(args...)
	if p.secret != "" && strings.Contains(out, p.secret) {
		p.t.Errorf("kyku %v printed the secret:\n%s", args, tail(out))
	}
	return code, out
}

var forceUnlockRE = regexp.MustCompile(`kyku force-unlock ([0-9a-f]+)`)

// stateFile writes a Terraform state read from its backend to a file of
// t's own.
func stateFile(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "terraform.tfstate")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// boxAnswers are the answers (and notes) in this machine's answer boxes
// under the state directory home (kyku/answers/<state>/).
func boxAnswers(t *testing.T, home string) []state.Answer {
	t.Helper()
	boxes, _ := filepath.Glob(filepath.Join(home, "kyku", "answers", "*"))
	var out []state.Answer
	for _, box := range boxes {
		if fi, err := os.Stat(box); err != nil || !fi.IsDir() || strings.HasSuffix(box, ".kept") {
			continue // a keeper's logs (state.KeeperLogs) are read with their box
		}
		out = append(out, boxRead(t, box)...)
	}
	return out
}
