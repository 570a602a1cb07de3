package bot_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/github/githubtest"
)

// stateServer is OpenTofu's http backend's server: GET the state (404
// none yet), POST to write it; it counts the reads and writes.
type stateServer struct {
	mu     sync.Mutex
	states map[string][]byte
	reads  int
	writes int
	read   map[string]int // reads by path
}

func newStateServer(t *testing.T) (*stateServer, *httptest.Server) {
	s := &stateServer{states: map[string][]byte{}, read: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch r.Method {
		case http.MethodGet:
			s.reads++
			s.read[r.URL.Path]++
			data, ok := s.states[r.URL.Path]
			if !ok {
				http.NotFound(w, r)
				return
			}
			_, _ = w.Write(data)
		case http.MethodPost:
			s.writes++
			data, _ := io.ReadAll(r.Body)
			s.states[r.URL.Path] = data
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	}))
	t.Cleanup(srv.Close)
	return s, srv
}

func (s *stateServer) counts() (reads, writes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads, s.writes
}

const tofuState = `{
  "version": 4,
  "terraform_version": "1.12.6",
  "serial": 1,
  "lineage": "6f1d3c1e-2b7a-4a43-9c2e-5d1f0e8a9b10",
  "outputs": {},
  "resources": [
    {
      "mode": "managed",
      "type": "terraform_data",
      "name": "a",
      "provider": "provider[\"terraform.io/builtin/terraform\"]",
      "instances": [
        {
          "schema_version": 0,
          "attributes": {
            "id": "5b4a1e0c-1d2e-3f40-5162-738495a6b7c8",
            "input": {"value": "a", "type": "string"},
            "output": {"value": "a", "type": "string"},
            "triggers_replace": null
          },
          "sensitive_attributes": []
        }
      ]
    }
  ],
  "check_results": null
}
`

// remoteState is a terraform_remote_state data source reading backend
// with config.
func remoteState(backend, config string) string {
	return "data \"terraform_remote_state\" \"net\" {\n  backend = " + backend + "\n  config  = " + config + "\n}\n"
}

// plannedRootPR is a harness (of opts) whose repository turns Terraform
// roots on, with the root infra (its state, OpenTofu's, in the http
// backend states serves) gaining a resource in PR 2, approved, by the
// author; writer may write. PR 2 is planned when it returns.
func plannedRootPR(t *testing.T, opts harnessOpts) (*harness, *stateServer) {
	t.Helper()
	states, srv := newStateServer(t)
	states.states["/infra"] = []byte(tofuState)
	backend := "  backend \"http\" {\n    address = \"" + srv.URL + "/infra\"\n  }"
	h := newHarness(t, opts)
	h.gh.SetPermission(repoName, "writer", "write")
	h.gh.SetFile(repoName, defaultBranch, settings.Path, []byte("terraform-roots: true\n"))
	h.gh.SetFile(repoName, defaultBranch, "infra/main.tf", []byte(rootFiles(backend, "a")))
	h.gh.SetFile(repoName, headA, "infra/main.tf", []byte(rootFiles(backend, "a", "b")))
	h.gh.AddPullRequest(repoName, githubtest.PullRequest{Number: 2, User: "author", HeadSHA: headA, HeadRef: "feature", Files: []string{"infra/main.tf"}})
	h.gh.AddReview(repoName, 2, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headA})
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	return h, states
}

// rootFiles is a Terraform root: its backend block and terraform_data
// resources (the built-in provider: nothing to install).
func rootFiles(backend string, resources ...string) string {
	var b strings.Builder
	b.WriteString("terraform {\n" + backend + "\n}\n")
	for _, r := range resources {
		b.WriteString(`resource "terraform_data" "` + r + `" {` + "\n  input = \"" + r + "\"\n}\n")
	}
	return b.String()
}

// TestBotPlansTerraformRoots: with terraform-roots: true, a pull request
// that changes a Terraform root gets the root's plan (its own check run
// and comment), its state read where the default branch's backend block
// says, and nothing written there. Each way a pull request or a
// repository could get the bot to open a state the operator did not
// grant it is refused with one line on the root's comment, and the state
// server is never reached.
func TestBotPlansTerraformRoots(t *testing.T) {
	states, srv := newStateServer(t)
	// The root's state, as OpenTofu 1.12 wrote it after applying
	// terraform_data.a: the plan reads it and has a to keep.
	states.states["/infra"] = []byte(tofuState)
	httpBackend := func(path string) string {
		return `  backend "http" {
    address = "` + srv.URL + path + `"
  }`
	}
	tests := []struct {
		name        string
		base, head  string // infra/main.tf at the default branch ("" none) and the head
		policy      string
		want        []string // in the root's plan comment
		reachServer bool
	}{
		{
			name: "plan", base: rootFiles(httpBackend("/infra"), "a"), head: rootFiles(httpBackend("/infra"), "a", "b"),
			want: []string{"terraform_data.b", "Plan: 1 to create, 0 to update, 0 to replace, 0 to destroy, 1 no-op"}, reachServer: true,
		},
		{
			name: "the pull request moves the state", base: rootFiles(httpBackend("/infra"), "a"), head: rootFiles(httpBackend("/other-team"), "a", "b"),
			want: []string{"infra: the pull request changes where the root's state is (its address)"},
		},
		{
			name: "bucket not granted to the repository", base: rootFiles(`  backend "s3" {
    bucket = "someone-elses"
    key    = "repo.186853002/infra.tfstate"
    region = "eu-west-1"
  }`, "a"), head: rootFiles(`  backend "s3" {
    bucket = "someone-elses"
    key    = "repo.186853002/infra.tfstate"
    region = "eu-west-1"
  }`, "a", "b"),
			want: []string{`infra/main.tf:2:3: bucket "someone-elses" is not granted to Codertocat/Hello-World by the bot's policy`},
		},
		{
			name: "another repository's key in a granted bucket", policy: testPolicy("shared-state"), base: rootFiles(`  backend "s3" {
    bucket = "shared-state"
    key    = "repo.1/infra.tfstate"
    region = "eu-west-1"
  }`, "a"), head: rootFiles(`  backend "s3" {
    bucket = "shared-state"
    key    = "repo.1/infra.tfstate"
    region = "eu-west-1"
  }`, "a", "b"),
			want: []string{`infra/main.tf:2:3: the state's key "repo.1/infra.tfstate" in bucket "shared-state" is outside "repo.186853002/"`},
		},
		{
			name: "terraform_remote_state of a place the policy grants", base: rootFiles(httpBackend("/infra"), "a") + remoteState(`"http"`, `{ address = "`+srv.URL+`/infra" }`),
			head: rootFiles(httpBackend("/infra"), "a", "b") + remoteState(`"http"`, `{ address = "`+srv.URL+`/infra" }`),
			want: []string{"terraform_data.b", "Plan: 1 to create"}, reachServer: true,
		},
		{
			name: "terraform_remote_state of another repository's state", base: rootFiles(httpBackend("/infra"), "a") + remoteState(`"s3"`, `{ bucket = "shared-state", key = "repo.1/net.tfstate", region = "eu-west-1" }`),
			head:   rootFiles(httpBackend("/infra"), "a", "b") + remoteState(`"s3"`, `{ bucket = "shared-state", key = "repo.1/net.tfstate", region = "eu-west-1" }`),
			policy: testPolicy("shared-state"),
			want:   []string{`infra/main.tf:9:1: the state's key "repo.1/net.tfstate" in bucket "shared-state" is outside "repo.186853002/"`},
		},
		{
			name: "local backend", base: rootFiles(`  backend "local" {}`, "a"), head: rootFiles(`  backend "local" {}`, "a", "b"),
			want: []string{"local state is refused in the bot"},
		},
		{
			name: "a new root the default branch lacks", head: rootFiles(httpBackend("/infra"), "a"),
			want: []string{"infra: the pull request adds this Terraform root"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{policy: tt.policy})
			h.gh.SetFile(repoName, defaultBranch, settings.Path, []byte("terraform-roots: true\n"))
			if tt.base != "" {
				h.gh.SetFile(repoName, defaultBranch, "infra/main.tf", []byte(tt.base))
			}
			h.gh.SetFile(repoName, headA, "infra/main.tf", []byte(tt.head))
			h.gh.AddPullRequest(repoName, githubtest.PullRequest{Number: 2, User: "author", HeadSHA: headA, HeadRef: "feature", Files: []string{"infra/main.tf"}})
			r0, w0 := states.counts()
			h.deliver("pull_request", prOpened(t, 2, headA))
			h.settle()

			var body string
			for _, c := range h.botComments(2) {
				if strings.Contains(c.Body, "infra") {
					body = c.Body
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("the root's plan comment lacks %q:\n%s", w, body)
				}
			}
			var check *githubtest.CheckRun
			for _, cr := range h.gh.CheckRuns(repoName) {
				if cr.Name == "kyku plan (infra)" {
					check = &cr
				}
			}
			if check == nil || check.Status != "completed" {
				t.Errorf("check run kyku plan (infra) = %+v; want one, completed", check)
			}
			r1, w1 := states.counts()
			if w1 != w0 {
				t.Errorf("the plan wrote the state %d times; a plan writes nothing", w1-w0)
			}
			if reached := r1 > r0; reached != tt.reachServer {
				t.Errorf("state server reached = %v; want %v", reached, tt.reachServer)
			}
		})
	}
}

// TestBotAppliesTerraformRootsOnMerge: with apply: merge, the merge of
// a pull request whose root plan was reviewed applies that saved plan on
// the root's state where the default branch's backend said before the
// merge, and the state written back is OpenTofu's (version 4, its serial
// raised, terraform_data.b in it); a merge whose root plan was refused
// (the pull request moved the state) applies nothing there.
func TestBotAppliesTerraformRootsOnMerge(t *testing.T) {
	for _, tt := range []struct {
		name        string
		headPath    string
		wantApplied bool
	}{
		{"applied", "/infra", true},
		{"the pull request moved the state", "/other-team", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			states, srv := newStateServer(t)
			states.states["/infra"] = []byte(tofuState)
			backend := func(path string) string { return "  backend \"http\" {\n    address = \"" + srv.URL + path + "\"\n  }" }
			h := newHarness(t, harnessOpts{})
			h.gh.SetFile(repoName, defaultBranch, settings.Path, []byte("terraform-roots: true\napply: merge\n"))
			h.gh.SetFile(repoName, defaultBranch, "infra/main.tf", []byte(rootFiles(backend("/infra"), "a")))
			head := []byte(rootFiles(backend(tt.headPath), "a", "b"))
			h.gh.SetFile(repoName, headA, "infra/main.tf", head)
			h.gh.SetFile(repoName, mergeSHA, "infra/main.tf", head)
			h.gh.AddPullRequest(repoName, githubtest.PullRequest{Number: 2, User: "author", HeadSHA: headA, HeadRef: "feature", Files: []string{"infra/main.tf"}})
			h.gh.AddReview(repoName, 2, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headA})
			h.deliver("pull_request", prOpened(t, 2, headA))
			h.settle()
			_, w0 := states.counts()
			h.gh.UpdatePullRequest(repoName, 2, func(p *githubtest.PullRequest) { p.State, p.Merged = "closed", true })
			h.gh.SetCommitPulls(repoName, mergeSHA, 2)
			h.deliver("pull_request", prMerged(t, 2, headA))
			h.settle()

			states.mu.Lock()
			state := string(states.states["/infra"])
			_, moved := states.states["/other-team"]
			states.mu.Unlock()
			_, w1 := states.counts()
			applied := strings.Contains(state, `"name":"b"`)
			if applied != tt.wantApplied || moved {
				t.Fatalf("state after the merge (written %d times; /other-team written: %v):\n%s\nwant terraform_data.b applied: %v", w1-w0, moved, state, tt.wantApplied)
			}
			if !tt.wantApplied {
				if w1 != w0 {
					t.Errorf("the refused merge wrote the state %d times", w1-w0)
				}
				return
			}
			for _, want := range []string{`"version":4`, `"serial":2`, `"lineage":"6f1d3c1e-2b7a-4a43-9c2e-5d1f0e8a9b10"`, `"name":"a"`} {
				if !strings.Contains(state, want) {
					t.Errorf("state lacks %s:\n%s", want, state)
				}
			}
		})
	}
}

// TestBotChecksTerraformRootsForDrift: each scheduled round checks every
// Terraform root of the default branch, its state read where the
// default branch's backend block says (and, with drift.write-state off,
// never written); a root whose backend the policy refuses (local) fails
// its check, opening nothing.
func TestBotChecksTerraformRootsForDrift(t *testing.T) {
	states, srv := newStateServer(t)
	states.states["/infra"] = []byte(tofuState)
	h, tick := driftHarness(t, harnessOpts{})
	h.gh.SetFile(repoName, defaultBranch, settings.Path, []byte("terraform-roots: true\ndrift: { enabled: true }\n"))
	h.gh.SetFile(repoName, defaultBranch, "infra/main.tf", []byte(rootFiles("  backend \"http\" {\n    address = \""+srv.URL+"/infra\"\n  }", "a")))
	h.gh.SetFile(repoName, defaultBranch, "sandbox/main.tf", []byte(rootFiles(`  backend "local" {}`, "a")))
	r0, w0 := states.counts()
	h.round(tick)
	r1, w1 := states.counts()
	if r1 == r0 || w1 != w0 {
		t.Errorf("state reads %d, writes %d; want it read and not written", r1-r0, w1-w0)
	}
	m := h.metrics()
	if got := m[`kyku_bot_jobs_total{kind="drift",outcome="clean"}`]; got != 2 {
		t.Errorf("clean drift checks = %v; want 2: infra's and kyku.yaml's", got)
	}
	if !strings.Contains(h.logs(), "sandbox") || !strings.Contains(h.logs(), "local state is refused in the bot") {
		t.Errorf("the sandbox root's check did not fail on its local backend; log:\n%s", h.logs())
	}
}

// TestBotAppliesTerraformRootOnComment: `/kyku apply -p infra` applies
// the root's reviewed saved plan on its state; `/kyku apply -p` naming
// a root the pull request does not touch applies nothing.
func TestBotAppliesTerraformRootOnComment(t *testing.T) {
	for _, tt := range []struct {
		name, project string
		wantApplied   bool
	}{
		{"the root named", "infra", true},
		{"another root named", "network", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h, states := plannedRootPR(t, harnessOpts{})
			h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply -p "+tt.project, 701))
			h.settle()
			states.mu.Lock()
			state := string(states.states["/infra"])
			states.mu.Unlock()
			if applied := strings.Contains(state, `"name":"b"`); applied != tt.wantApplied {
				t.Errorf("terraform_data.b applied = %v, want %v; state:\n%s", applied, tt.wantApplied, state)
			}
		})
	}
}

// TestBotLeavesTerraformRootsAloneByDefault: without terraform-roots:
// true in the default branch's settings, a pull request changing a root
// gets no root plan and its state is never read (a repository whose .tf
// files the bot did not plan before is not planned now).
func TestBotLeavesTerraformRootsAloneByDefault(t *testing.T) {
	states, srv := newStateServer(t)
	backend := "  backend \"http\" {\n    address = \"" + srv.URL + "/infra\"\n  }"
	h := newHarness(t, harnessOpts{})
	h.gh.SetFile(repoName, defaultBranch, "infra/main.tf", []byte(rootFiles(backend, "a")))
	h.gh.SetFile(repoName, headA, "infra/main.tf", []byte(rootFiles(backend, "a", "b")))
	// The pull request's own settings turn it on: they are not read.
	h.gh.SetFile(repoName, headA, settings.Path, []byte("terraform-roots: true\n"))
	h.gh.AddPullRequest(repoName, githubtest.PullRequest{Number: 2, User: "author", HeadSHA: headA, HeadRef: "feature", Files: []string{"infra/main.tf", settings.Path}})
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	for _, cr := range h.gh.CheckRuns(repoName) {
		if cr.Name == "kyku plan (infra)" {
			t.Errorf("check run %q created without terraform-roots", cr.Name)
		}
	}
	if r, w := states.counts(); r+w != 0 {
		t.Errorf("state server reached %d times", r+w)
	}
}

// TestBotDriftSkipsAMissingKykuYAMLBesideRoots: with terraform-roots
// on, a project of the settings whose kyku.yaml the default branch does
// not have is not checked (no failed check each round); the roots are.
func TestBotDriftSkipsAMissingKykuYAMLBesideRoots(t *testing.T) {
	states, srv := newStateServer(t)
	states.states["/infra"] = []byte(tofuState)
	h, tick := driftHarness(t, harnessOpts{})
	h.gh.SetFile(repoName, defaultBranch, settings.Path, []byte("terraform-roots: true\ndrift: { enabled: true }\nprojects:\n  - name: app\n    config: app/kyku.yaml\n"))
	h.gh.SetFile(repoName, defaultBranch, "infra/main.tf", []byte(rootFiles("  backend \"http\" {\n    address = \""+srv.URL+"/infra\"\n  }", "a")))
	h.round(tick)
	m := h.metrics()
	got := map[string]float64{}
	for k, v := range m {
		if strings.HasPrefix(k, `kyku_bot_jobs_total{kind="drift"`) {
			got[k] = v
		}
	}
	want := map[string]float64{`kyku_bot_jobs_total{kind="drift",outcome="clean"}`: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("drift jobs (-want +got):\n%s", diff)
	}
}
