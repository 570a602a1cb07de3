package action_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/review"
)

// backendArg is an argument of the fixture's backend type that moves
// the state without breaking the block: a pull request's way to point it
// elsewhere.
func (f *fixture) backendArg() string {
	if _, typ, _ := f.tfBackend("x"); typ == "s3" {
		return "workspace_key_prefix"
	}
	return "workspace_dir"
}

// withArg is a root's backend block with one more argument.
func (f *fixture) withArg(mainTF, arg, val string) string {
	i := strings.Index(mainTF, "backend \"")
	j := strings.Index(mainTF[i:], "{") + i + 1
	return mainTF[:j] + "\n    " + arg + " = \"" + val + "\"\n" + mainTF[j:]
}

// TestTerraformRootAttacks tries each way a pull request could choose
// where a root's state is, which state it reads, or which files it
// loads: every one is refused in one line on the root's plan comment
// (or not planned at all), and nothing is saved or written.
func TestTerraformRootAttacks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		inputs  map[string]string
		base    func(f *fixture, files map[string]string)
		head    func(f *fixture, files map[string]string)
		changed []string
		code    int
		// comment is in the plan comment of project "infra/net" (or
		// commentOn's); log in the log.
		comment, commentOn, log string
		noComments              bool
	}{
		{
			name: "the pull request edits the backend block",
			head: func(f *fixture, files map[string]string) {
				files["infra/net/main.tf"] = f.withArg(files["infra/net/main.tf"], f.backendArg(), "attacker")
			},
			changed: []string{"infra/net/main.tf"}, code: 1,
			comment: "infra/net: the pull request changes where the root's state is (its ",
		},
		{
			name: "the pull request adds a backend block in a file of its own",
			base: func(f *fixture, files map[string]string) {
				files["infra/net/main.tf"] = strings.SplitAfterN(files["infra/net/main.tf"], "}\n}\n", 2)[1]
				files["infra/net/backend.tf"] = "terraform {\n  backend \"local\" {}\n}\n"
			},
			head: func(f *fixture, files map[string]string) {
				files["infra/net/backend.tf"] = "terraform {\n  backend \"local\" {\n    path = \"/tmp/stolen.tfstate\"\n  }\n}\n"
			},
			inputs:  map[string]string{"INPUT_LOCAL-STATE": "allow"},
			changed: []string{"infra/net/backend.tf"}, code: 1,
			comment: "changes where the root's state is (its path)",
		},
		{
			name:   "the pull request changes the -backend-config file the workflow names",
			inputs: map[string]string{"INPUT_BACKEND-CONFIG": "backend.hcl"},
			base: func(f *fixture, files map[string]string) {
				files["infra/net/backend.hcl"] = f.backendArg() + " = \"team\"\n"
				files["infra/app/backend.hcl"] = "\n"
			},
			head: func(f *fixture, files map[string]string) {
				files["infra/net/backend.hcl"] = f.backendArg() + " = \"attacker\"\n"
			},
			changed: []string{"infra/net/backend.hcl", "infra/net/main.tf"}, code: 1,
			comment: "changes where the root's state is (its " + "",
		},
		{
			name: "the pull request points terraform_remote_state elsewhere",
			base: func(f *fixture, files map[string]string) {
				files["infra/net/main.tf"] += "data \"terraform_remote_state\" \"shared\" {\n  backend = \"local\"\n  config = { path = \"shared.tfstate\" }\n}\n"
			},
			head: func(f *fixture, files map[string]string) {
				files["infra/net/main.tf"] = strings.Replace(files["infra/net/main.tf"], "shared.tfstate", "../../other-team/terraform.tfstate", 1)
			},
			changed: []string{"infra/net/main.tf"}, code: 1,
			comment: "infra/net: the pull request changes which state data.terraform_remote_state.shared reads",
		},
		{
			name: "the pull request adds a root",
			head: func(f *fixture, files map[string]string) {
				files["infra/new/main.tf"] = files["infra/net/main.tf"]
			},
			changed: []string{"infra/new/main.tf"}, code: 1, commentOn: "infra/new",
			comment: "infra/new: the pull request adds this Terraform root, and where a root's state is is the default branch's to say",
		},
		{
			name:   "a root whose state is local, on a runner",
			inputs: map[string]string{"INPUT_LOCAL-STATE": "refuse"},
			base: func(f *fixture, files map[string]string) {
				files["infra/net/main.tf"] = "terraform {\n  backend \"local\" {}\n}\n" + strings.SplitAfterN(files["infra/net/main.tf"], "}\n}\n", 2)[1]
			},
			head: func(f *fixture, files map[string]string) {
				files["infra/net/main.tf"] += "resource \"terraform_data\" \"more\" {}\n"
			},
			changed: []string{"infra/net/main.tf"}, code: 1,
			comment: "infra/net/main.tf:2 (at the default branch): the backend is local: on a runner, state and saved plans vanish with the runner",
		},
		{
			name:   "a root outside the working directory",
			inputs: map[string]string{"INPUT_WORKING-DIRECTORY": "infra"},
			head: func(f *fixture, files map[string]string) {
				files["legacy/main.tf"] = files["infra/net/main.tf"] + "resource \"terraform_data\" \"more\" {}\n"
			},
			changed: []string{"legacy/main.tf"}, code: 0, noComments: true,
			log: "Terraform roots outside input working-directory infra left alone: legacy",
		},
		{
			name: "a module source leaving the repository",
			head: func(f *fixture, files map[string]string) {
				files["infra/app/main.tf"] = strings.Replace(files["infra/app/main.tf"], "../../modules/web", "../../../../../../../../etc", 1)
			},
			changed: []string{"infra/app/main.tf"}, code: 1, noComments: true,
			log: `module "web": source "../../../../../../../../etc" leaves the repository`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			for k, v := range tc.inputs {
				f.base[k] = v
			}
			base := f.tfRepo("v1", nil)
			if tc.base != nil {
				tc.base(f, base)
			}
			head := map[string]string{}
			for k, v := range base {
				head[k] = v
			}
			tc.head(f, head)
			f.setTree(defaultRef, base)
			f.setTree(shaA, head)
			f.addPRFiles(2, shaA, tc.changed...)
			r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil)
			wantCode(t, r, tc.code)
			if tc.log != "" && !strings.Contains(r.stdout, tc.log) {
				t.Errorf("the log lacks %q:\n%s", tc.log, r.stdout)
			}
			if tc.noComments {
				if c := f.srv.Comments(repoName, 2); len(c) > 0 {
					t.Errorf("want no comment, got %+v", c)
				}
			}
			if tc.comment != "" {
				project := tc.commentOn
				if project == "" {
					project = "infra/net"
				}
				if body := f.planComment(t, 2, project); !strings.Contains(body, tc.comment) {
					t.Errorf("the plan comment lacks %q:\n%s", tc.comment, body)
				}
			}
			net := f.rootBackend(t, "infra/net", "net.tfstate")
			if _, err := net.GetObject(t.Context(), review.SavedPlanKey("infra/net", envName, 2, shaA)); err == nil && tc.code != 0 {
				t.Error("a refused plan was saved")
			}
			if st, _ := net.Read(t.Context()); st != nil {
				t.Errorf("the state was written: %v", st.Names())
			}
		})
	}
}

// TestTerraformRootBackendMovedAfterReview: a pull request planned with
// the default branch's backend whose head then moves the state is
// refused by its merge, which applies nothing; and a merge whose
// workflow the pull request changed (its backend-config) is refused.
func TestTerraformRootMergeRefusals(t *testing.T) {
	setup := func(t *testing.T) (*fixture, map[string]string) {
		f := newFixture(t)
		base := f.tfRepo("v1", nil)
		f.setTree(defaultRef, base)
		f.setTree(pushBefore, base)
		head := f.tfRepo("v1", map[string]string{"infra/net/main.tf": base["infra/net/main.tf"] + "resource \"terraform_data\" \"subnet\" {}\n"})
		f.setTree(shaA, head)
		f.addPRFiles(2, shaA, "infra/net/main.tf")
		f.srv.SetPermission(repoName, "octocat", "write")
		wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil), 0)
		f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})
		f.srv.UpdatePullRequest(repoName, 2, func(pr *githubtest.PullRequest) { pr.State, pr.Merged = "closed", true })
		f.srv.SetCommitPulls(repoName, mergeSHA, 2)
		f.setTree(mergeSHA, head)
		return f, head
	}
	t.Run("the default branch's backend moved under the reviewed plan", func(t *testing.T) {
		f, head := setup(t)
		// Another merge moved net's state before this one: the reviewed
		// head's backend is no longer the default branch's.
		moved := map[string]string{}
		for k, v := range head {
			moved[k] = v
		}
		moved["infra/net/main.tf"] = f.withArg(head["infra/net/main.tf"], f.backendArg(), "moved")
		f.setTree(pushBefore, moved)
		r := f.run("push", pushEvent(t, "refs/heads/"+defaultRef, mergeSHA), nil)
		wantCode(t, r, 1)
		if !strings.Contains(r.stdout, "infra/net: the pull request changes where the root's state is") {
			t.Errorf("the log does not say why:\n%s", r.stdout)
		}
		if st, _ := f.rootBackend(t, "infra/net", "net.tfstate").Read(t.Context()); st != nil {
			t.Errorf("the merge applied: %v", st.Names())
		}
	})
	t.Run("the pull request's workflow adds a -backend-config", func(t *testing.T) {
		f, _ := setup(t)
		f.setWorkflow(workflowYAML+"          backend-config: key=stolen\n", mergeSHA)
		r := f.run("push", pushEvent(t, "refs/heads/"+defaultRef, mergeSHA), map[string]string{"INPUT_BACKEND-CONFIG": "workspace_dir=stolen"})
		wantCode(t, r, 1)
		if !strings.Contains(r.stdout, workflowFile) {
			t.Errorf("the refusal does not name the workflow:\n%s", r.stdout)
		}
		if st, _ := f.rootBackend(t, "infra/net", "net.tfstate").Read(t.Context()); st != nil {
			t.Errorf("the merge applied: %v", st.Names())
		}
	})
}
