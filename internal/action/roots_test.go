package action_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
	"github.com/kyku/action/internal/tfroots"
	"github.com/kyku/action/internal/workspace"
	"github.com/kyku/action/internal/workspace/awsstore"
)

// tfBackend is a Terraform root's backend block and its arguments: the
// S3 server's (KYKU_TEST_S3_ENDPOINT, the fixture's bucket, key under
// the root's name) when there is one, else the local backend.
func (f *fixture) tfBackend(key string) (block string, typ string, args map[string]any) {
	bucket := bucketRE.FindString(f.backend)
	if bucket == "" {
		return "terraform {\n  backend \"local\" {}\n}\n", "local", map[string]any{}
	}
	endpoint, region := os.Getenv("KYKU_TEST_S3_ENDPOINT"), f.base["AWS_REGION"]
	args = map[string]any{"bucket": bucket, "key": key, "region": region, "endpoints": map[string]any{"s3": endpoint},
		"use_path_style": true, "use_lockfile": true, "skip_credentials_validation": true}
	block = fmt.Sprintf("terraform {\n  backend \"s3\" {\n    bucket = %q\n    key = %q\n    region = %q\n    endpoints = { s3 = %q }\n"+
		"    use_path_style = true\n    use_lockfile = true\n    skip_credentials_validation = true\n  }\n}\n", bucket, key, region, endpoint)
	return block, "s3", args
}

// rootBackend opens the state (and saved plans) of the root at dir as
// OpenTofu keeps them, to inspect them.
func (f *fixture) rootBackend(t *testing.T, dir, key string) statemgr.Backend {
	t.Helper()
	_, typ, args := f.tfBackend(key)
	b, err := workspace.OpenTerraformBackend(t.Context(), &workspace.TerraformState{Type: typ, Args: args, Dir: filepath.Join(f.checkout, filepath.FromSlash(dir))},
		workspace.Settings{Env: envName, Getenv: func(k string) string { return f.base[k] }, AWS: awsstore.Store{}})
	must(t, err)
	return b
}

// setTree makes files the content of ref (and nothing else of them).
func (f *fixture) setTree(ref string, files map[string]string) {
	for name, text := range files {
		f.srv.SetFile(repoName, ref, name, []byte(text))
	}
	f.srv.SetFile(repoName, ref, workflowFile, []byte(workflowYAML))
}

// tfProviders has infra/net use the framework test provider (its cloud
// a directory of items), installed from a mirror in the checkout and
// locked in infra/net/.terraform.lock.hcl as kyku init writes it.
func (f *fixture) tfProviders(t *testing.T) (cloud string) {
	t.Helper()
	mirror := filepath.Join(f.checkout, "mirror")
	tfplugintest.Mirror(t, mirror, tfplugintest.Framework)
	f.cloud = filepath.Join(f.dir, "items")
	must(t, os.MkdirAll(f.cloud, 0o755))
	top := t.TempDir()
	must(t, tfroots.Materialize(top, map[string][]byte{"infra/net/main.tf": []byte(f.tfRepo("v1", nil)["infra/net/main.tf"])}))
	l, err := tfroots.Load(t.Context(), top, "infra/net", tfconfig.Inputs{}, nil)
	must(t, err)
	if _, _, err := workspace.Init(t.Context(), l.Config, workspace.Settings{BaseDir: l.Dir, Plugins: workspace.Plugins{Mirror: mirror}}, false); err != nil {
		t.Fatal(err)
	}
	lock, err := os.ReadFile(filepath.Join(l.Dir, ".terraform.lock.hcl"))
	must(t, err)
	f.tfLock = string(lock)
	f.base["INPUT_PLUGIN-MIRROR"] = "mirror"
	f.base["KYKU_PLUGIN_CACHE"] = filepath.Join(f.dir, "plugin-cache")
	return f.cloud
}

// tfRepo is a repository of Terraform roots and no kyku.yaml: infra/net
// and infra/app, app calling the local module modules/web; with
// tfProviders, net holds a test provider's item too.
func (f *fixture) tfRepo(webInput string, extra map[string]string) map[string]string {
	net, _, _ := f.tfBackend("net.tfstate")
	app, _, _ := f.tfBackend("app.tfstate")
	if f.cloud != "" {
		net += "terraform {\n  required_providers {\n    fwtest = { source = \"kyku/fwtest\" }\n  }\n}\n" +
			"provider \"fwtest\" {\n  dir = \"" + f.cloud + "\"\n}\nresource \"fwtest_item\" \"a\" {\n  name  = \"a\"\n  value = \"v1\"\n}\n"
	}
	files := map[string]string{
		"README.md":           "hello\n",
		"infra/net/main.tf":   net + "resource \"terraform_data\" \"vpc\" {\n  input = \"10.0.0.0/16\"\n}\n",
		"infra/app/main.tf":   app + "module \"web\" {\n  source = \"../../modules/web\"\n  name   = \"app\"\n}\n",
		"modules/web/main.tf": "variable \"name\" {}\nresource \"terraform_data\" \"web\" {\n  input = \"${var.name}-" + webInput + "\"\n}\noutput \"id\" {\n  value = terraform_data.web.id\n}\n",
	}
	if f.tfLock != "" {
		files["infra/net/.terraform.lock.hcl"] = f.tfLock
	}
	for k, v := range extra {
		files[k] = v
	}
	return files
}

func (f *fixture) addPRFiles(number int, sha string, files ...string) {
	f.srv.AddPullRequest(repoName, githubtest.PullRequest{Number: number, User: author, HeadSHA: sha, HeadRef: "change-" + itoa(number), Files: files})
}

// planComment is the plan comment of project on pull request number.
func (f *fixture) planComment(t *testing.T, number int, project string) string {
	t.Helper()
	marker := render.PlanMarker(project, envName)
	for _, c := range f.srv.Comments(repoName, number) {
		if strings.HasPrefix(c.Body, marker) {
			return c.Body
		}
	}
	t.Fatalf("#%d has no plan comment %s; comments: %+v", number, marker, f.srv.Comments(repoName, number))
	return ""
}

// TestTerraformRootsThroughTheAction: a pull request touching two
// Terraform roots gets a plan comment, a saved plan and a plan.json for
// each; its merge applies exactly the reviewed plans on each root's
// state, where its backend block says, in OpenTofu's format; a pull
// request changing only a module plans its caller; the drift schedule
// refreshes every root.
func TestTerraformRootsThroughTheAction(t *testing.T) {
	f := newFixture(t)
	f.tfProviders(t)
	base := f.tfRepo("v1", nil)
	f.setTree(defaultRef, base)
	f.setTree(pushBefore, base)
	head := f.tfRepo("v1", map[string]string{
		"infra/net/main.tf": base["infra/net/main.tf"] + "resource \"terraform_data\" \"subnet\" {\n  input = \"10.0.1.0/24\"\n}\n",
		"infra/app/main.tf": base["infra/app/main.tf"] + "resource \"terraform_data\" \"dns\" {\n  input = module.web.id\n}\n",
	})
	f.setTree(shaA, head)
	f.addPRFiles(2, shaA, "infra/net/main.tf", "infra/app/main.tf")
	f.srv.SetPermission(repoName, "octocat", "write")

	net, app := f.rootBackend(t, "infra/net", "net.tfstate"), f.rootBackend(t, "infra/app", "app.tfstate")
	t.Run("a pull request touching two roots: a plan each", func(t *testing.T) {
		r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil)
		wantCode(t, r, 0)
		if n := len(f.srv.Comments(repoName, 2)); n != 2 {
			t.Fatalf("want 2 plan comments, got %d", n)
		}
		for _, c := range []struct {
			project string
			want    []string
		}{
			{"infra/net", []string{"fwtest_item.a", "terraform_data.subnet", "terraform_data.vpc", "3 to create"}},
			{"infra/app", []string{"module.web.terraform_data.web", "terraform_data.dns", "2 to create"}},
		} {
			body := f.planComment(t, 2, c.project)
			for _, w := range c.want {
				if !strings.Contains(body, w) {
					t.Errorf("%s's plan comment lacks %q:\n%s", c.project, w, body)
				}
			}
		}
		wantOutputs(t, r, map[string]string{"has-changes": "true", "creates": "5", "destroys": "0"})
		for _, c := range []struct {
			b       statemgr.Backend
			project string
		}{{net, "infra/net"}, {app, "infra/app"}} {
			if _, err := c.b.GetObject(t.Context(), review.SavedPlanKey(c.project, envName, 2, shaA)); err != nil {
				t.Errorf("no saved plan for %s beside its state: %v", c.project, err)
			}
			if _, err := os.Stat(filepath.Join(r.outputs["plan-file"], filepath.FromSlash(c.project), "plan.json")); err != nil {
				t.Errorf("plan-file %s: no plan.json for %s: %v", r.outputs["plan-file"], c.project, err)
			}
		}
		if st, _ := net.Read(t.Context()); st != nil {
			t.Errorf("a plan wrote the state: %v", st.Names())
		}
	})

	t.Run("the merge applies each reviewed plan to its root's state", func(t *testing.T) {
		f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})
		f.srv.UpdatePullRequest(repoName, 2, func(pr *githubtest.PullRequest) { pr.State, pr.Merged = "closed", true })
		f.srv.SetCommitPulls(repoName, mergeSHA, 2)
		f.setTree(mergeSHA, head)
		r := f.run("push", pushEvent(t, "refs/heads/"+defaultRef, mergeSHA), nil)
		wantCode(t, r, 0)
		wantOutputs(t, r, map[string]string{"applied": "true"})
		for _, c := range []struct {
			b     statemgr.Backend
			names []string
		}{
			{net, []string{"fwtest_item.a", "terraform_data.subnet", "terraform_data.vpc"}},
			{app, []string{"module.web.terraform_data.web", "terraform_data.dns"}},
		} {
			st, err := c.b.Read(t.Context())
			must(t, err)
			if st == nil || strings.Join(st.Names(), " ") != strings.Join(c.names, " ") {
				t.Errorf("state after the merge: %v, want %v", st, c.names)
			}
		}
		applied := 0
		for _, c := range f.srv.Comments(repoName, 2) {
			if strings.HasPrefix(c.Body, "<!-- kyku:apply env=prod project=infra%2F") && strings.Contains(c.Body, "succeeded") {
				applied++
			}
		}
		if applied != 2 {
			t.Errorf("want 2 apply results on #2, got %d", applied)
		}
	})

	t.Run("a pull request changing only a module plans its caller", func(t *testing.T) {
		changed := f.tfRepo("v2", nil)
		changed["infra/net/main.tf"], changed["infra/app/main.tf"] = head["infra/net/main.tf"], head["infra/app/main.tf"]
		f.setTree(shaB, changed)
		f.setTree(defaultRef, head) // merged
		f.addPRFiles(3, shaB, "modules/web/main.tf")
		r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 3, shaB), nil)
		wantCode(t, r, 0)
		comments := f.srv.Comments(repoName, 3)
		if len(comments) != 1 {
			t.Fatalf("want 1 plan comment (infra/app), got %d", len(comments))
		}
		body := f.planComment(t, 3, "infra/app")
		if !strings.Contains(body, "module.web.terraform_data.web") || !strings.Contains(body, "app-v2") {
			t.Errorf("the caller's plan does not show the module's change:\n%s", body)
		}
	})

	t.Run("the drift schedule refreshes every root", func(t *testing.T) {
		f.writeCheckout(t, head)
		schedule := scheduleEvent(t)
		clean := f.run("schedule", schedule, nil)
		wantCode(t, clean, 0)
		wantOutputs(t, clean, map[string]string{"drift": "false"})
		for _, project := range []string{"infra/net", "infra/app"} {
			if !strings.Contains(clean.summary, "no drift in `prod` (project `"+project+"`)") {
				t.Errorf("the summary does not report %s:\n%s", project, clean.summary)
			}
		}

		f.editItem(t, "a", "v1", "changed-in-the-console")
		r := f.run("schedule", schedule, nil)
		wantCode(t, r, 0)
		wantOutputs(t, r, map[string]string{"drift": "true"})
		issues := f.srv.Issues(repoName)
		if len(issues) != 1 || !strings.Contains(issues[0].Title, "infra/net") || !strings.Contains(issues[0].Body, "fwtest_item.a") {
			t.Fatalf("want one drift issue for infra/net naming fwtest_item.a, got %+v", issues)
		}
		if !strings.Contains(r.summary, "no drift in `prod` (project `infra/app`)") {
			t.Errorf("infra/app was not checked:\n%s", r.summary)
		}
	})
}

// editItem changes the test cloud's item name (drift, as someone editing
// it in the console).
func (f *fixture) editItem(t *testing.T, name, old, repl string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(f.cloud, "*.json"))
	must(t, err)
	for _, file := range files {
		data, err := os.ReadFile(file)
		must(t, err)
		var it map[string]any
		must(t, json.Unmarshal(data, &it))
		if it["name"] != name {
			continue
		}
		if it["value"] != old {
			t.Fatalf("%s: value %v, want %s", file, it["value"], old)
		}
		it["value"] = repl
		data, err = json.Marshal(it)
		must(t, err)
		must(t, os.WriteFile(file, data, 0o644))
		return
	}
	t.Fatalf("no item %s in %s", name, f.cloud)
}

// TestTerraformRootsByComment: `/kyku apply -p <root>` applies that
// root's reviewed plan only; a root the pull request adds, allowed by
// input terraform-new-roots, is planned with its own backend, refused by
// a comment's apply, and applied by the merge.
func TestTerraformRootsByComment(t *testing.T) {
	f := newFixture(t)
	f.base["INPUT_TERRAFORM-NEW-ROOTS"] = "allow"
	base := f.tfRepo("v1", nil)
	f.setTree(defaultRef, base)
	f.setTree(pushBefore, base)
	newRoot, _, _ := f.tfBackend("new.tfstate")
	head := f.tfRepo("v1", map[string]string{
		"infra/net/main.tf": base["infra/net/main.tf"] + "resource \"terraform_data\" \"subnet\" {}\n",
		"infra/new/main.tf": newRoot + "resource \"terraform_data\" \"fresh\" {}\n",
	})
	f.setTree(shaA, head)
	f.addPRFiles(2, shaA, "infra/net/main.tf", "infra/new/main.tf")
	f.srv.SetPermission(repoName, "octocat", "write")
	f.srv.SetPermission(repoName, "hubot", "write")
	net, added := f.rootBackend(t, "infra/net", "net.tfstate"), f.rootBackend(t, "infra/new", "new.tfstate")

	r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil)
	wantCode(t, r, 0)
	if body := f.planComment(t, 2, "infra/new"); !strings.Contains(body, "terraform_data.fresh") {
		t.Fatalf("the new root's plan comment:\n%s", body)
	}
	f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})

	r = f.run("issue_comment", commentEvent(t, 2, "hubot", "/kyku apply -p infra/net", 7001), map[string]string{"GITHUB_ACTOR": "hubot"})
	wantCode(t, r, 0)
	wantOutputs(t, r, map[string]string{"applied": "true"})
	if st, err := net.Read(t.Context()); err != nil || st == nil || strings.Join(st.Names(), " ") != "terraform_data.subnet terraform_data.vpc" {
		t.Errorf("infra/net after /kyku apply -p infra/net: %v %v", st, err)
	}
	if st, _ := added.Read(t.Context()); st != nil {
		t.Errorf("/kyku apply -p infra/net applied infra/new: %v", st.Names())
	}

	r = f.run("issue_comment", commentEvent(t, 2, "hubot", "/kyku apply -p infra/new", 7002), map[string]string{"GITHUB_ACTOR": "hubot"})
	wantOutputs(t, r, map[string]string{"applied": "false"})
	if st, _ := added.Read(t.Context()); st != nil {
		t.Errorf("a comment applied a root the default branch lacks: %v", st.Names())
	}
	if !strings.Contains(r.summary, "there is no trusted backend to apply with") {
		t.Errorf("the refusal does not say why:\n%s", r.summary)
	}

	f.srv.UpdatePullRequest(repoName, 2, func(pr *githubtest.PullRequest) { pr.State, pr.Merged = "closed", true })
	f.srv.SetCommitPulls(repoName, mergeSHA, 2)
	f.setTree(mergeSHA, head)
	r = f.run("push", pushEvent(t, "refs/heads/"+defaultRef, mergeSHA), nil)
	if st, err := added.Read(t.Context()); err != nil || st == nil || strings.Join(st.Names(), " ") != "terraform_data.fresh" {
		t.Errorf("the merge did not apply the new root: %v %v\n%s", st, err, r.stdout)
	}
}

// TestTerraformRootSecrets: a root's sensitive variable given as
// TF_VAR_<name> in the step's environment is masked in the log before
// anything runs, and no plan comment, summary or plan.json shows it.
func TestTerraformRootSecrets(t *testing.T) {
	f := newFixture(t)
	const token = "tf-var-s3cr3t-token"
	f.base["TF_VAR_token"] = token
	base := f.tfRepo("v1", nil)
	f.setTree(defaultRef, base)
	head := f.tfRepo("v1", map[string]string{"infra/net/main.tf": base["infra/net/main.tf"] +
		"variable \"token\" {\n  sensitive = true\n}\nresource \"terraform_data\" \"cfg\" {\n  input = \"TOKEN=${var.token}\"\n}\n"})
	f.setTree(shaA, head)
	f.addPRFiles(2, shaA, "infra/net/main.tf")
	r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil)
	wantCode(t, r, 0)
	if m, start := strings.Index(r.stdout, "::add-mask::"+token), strings.Index(r.stdout, "kyku: pull_request"); m < 0 || m > start {
		t.Errorf("TF_VAR_token is not masked before anything runs:\n%s", r.stdout)
	}
	body := f.planComment(t, 2, "infra/net")
	if !strings.Contains(body, "terraform_data.cfg") || strings.Contains(body, token) {
		t.Errorf("the plan comment:\n%s", body)
	}
	data, err := os.ReadFile(r.outputs["plan-file"])
	must(t, err)
	if strings.Contains(string(data), token) || strings.Contains(r.summary, token) {
		t.Error("plan.json or the summary shows the sensitive value")
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.Contains(line, token) && line != "::add-mask::"+token {
			t.Errorf("the log shows the value: %q", line)
		}
	}
}

// TestKykuYAMLBesideTerraformRoots: a repository with kyku.yaml and
// Terraform roots; a pull request touching both gets kyku.yaml's plan
// comment as before and one per root, and its merge applies both.
func TestKykuYAMLBesideTerraformRoots(t *testing.T) {
	f := newFixture(t)
	base := f.tfRepo("v1", map[string]string{configPath: f.config("web")})
	f.setTree(defaultRef, base)
	f.setTree(pushBefore, base)
	f.setCheckout(f.config("web"))
	head := f.tfRepo("v1", map[string]string{configPath: f.config("web", "worker"),
		"infra/net/main.tf": base["infra/net/main.tf"] + "resource \"terraform_data\" \"subnet\" {}\n"})
	f.setTree(shaA, head)
	f.addPRFiles(2, shaA, configPath, "infra/net/main.tf")
	f.srv.SetPermission(repoName, "octocat", "write")

	r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil)
	wantCode(t, r, 0)
	if body := f.planComment(t, 2, ""); !strings.Contains(body, "worker") {
		t.Errorf("kyku.yaml's plan comment:\n%s", body)
	}
	if body := f.planComment(t, 2, "infra/net"); !strings.Contains(body, "terraform_data.subnet") {
		t.Errorf("infra/net's plan comment:\n%s", body)
	}
	if n := len(f.srv.Comments(repoName, 2)); n != 2 {
		t.Errorf("want 2 plan comments, got %d", n)
	}
	wantOutputs(t, r, map[string]string{"creates": "4"}) // web and worker (first plan), vpc and subnet

	f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})
	f.srv.UpdatePullRequest(repoName, 2, func(pr *githubtest.PullRequest) { pr.State, pr.Merged = "closed", true })
	f.srv.SetCommitPulls(repoName, mergeSHA, 2)
	f.setTree(mergeSHA, head)
	f.setCheckout(f.config("web", "worker"))
	r = f.run("push", pushEvent(t, "refs/heads/"+defaultRef, mergeSHA), nil)
	wantCode(t, r, 0)
	if n := len(f.cloudObjects(t)); n != 2 {
		t.Errorf("the sim's cloud has %d objects after the merge, want 2 (web, worker)", n)
	}
	if st, err := f.rootBackend(t, "infra/net", "net.tfstate").Read(t.Context()); err != nil || st == nil || len(st.Names()) != 2 {
		t.Errorf("infra/net after the merge: %v %v", st, err)
	}
}

// TestTerraformOnlyRepositoryUntouched: in a repository of Terraform
// roots without kyku.yaml, a pull request and its merge that touch no
// root do nothing and say so (no failed job for a README change).
func TestTerraformOnlyRepositoryUntouched(t *testing.T) {
	f := newFixture(t)
	base := f.tfRepo("v1", nil)
	f.setTree(defaultRef, base)
	f.setTree(shaA, f.tfRepo("v1", map[string]string{"README.md": "changed\n"}))
	f.setTree(mergeSHA, f.tfRepo("v1", map[string]string{"README.md": "changed\n"}))
	f.addPRFiles(2, shaA, "README.md")
	r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil)
	wantCode(t, r, 0)
	if !strings.Contains(r.summary, "changes no Terraform root") || len(f.srv.Comments(repoName, 2)) != 0 {
		t.Errorf("the plan of a pull request touching nothing:\n%s", r.summary)
	}
	f.srv.UpdatePullRequest(repoName, 2, func(pr *githubtest.PullRequest) { pr.State, pr.Merged = "closed", true })
	f.srv.SetCommitPulls(repoName, mergeSHA, 2)
	r = f.run("push", pushEvent(t, "refs/heads/"+defaultRef, mergeSHA), nil)
	wantCode(t, r, 0)
	if !strings.Contains(r.summary, "changes no Terraform root") {
		t.Errorf("the merge of a pull request touching nothing:\n%s", r.summary)
	}
}

// TestTerraformRootProviderFunctions: a root calling its provider's
// functions (provider::fwtest::join_upper) is planned with their values,
// the provider installed from the default branch's lock as its resources'
// are and stopped when the run ends; one calling a function its provider
// lacks is refused at the call.
func TestTerraformRootProviderFunctions(t *testing.T) {
	f := newFixture(t)
	f.tfProviders(t)
	base := f.tfRepo("v1", nil)
	f.setTree(defaultRef, base)
	f.setTree(pushBefore, base)
	head := f.tfRepo("v1", map[string]string{
		"infra/net/main.tf": base["infra/net/main.tf"] + "resource \"terraform_data\" \"fn\" {\n  input = provider::fwtest::join_upper(\"-\", \"ab\", \"cd\")\n}\n",
	})
	f.setTree(shaA, head)
	f.addPRFiles(2, shaA, "infra/net/main.tf")
	r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil)
	wantCode(t, r, 0)
	if body := f.planComment(t, 2, "infra/net"); !strings.Contains(body, "AB-CD") {
		t.Errorf("the plan comment lacks the function's value AB-CD:\n%s", body)
	}

	bad := f.tfRepo("v1", map[string]string{
		"infra/net/main.tf": base["infra/net/main.tf"] + "output \"x\" {\n  value = provider::fwtest::lower(\"A\")\n}\n",
	})
	f.setTree(shaB, bad)
	f.addPRFiles(3, shaB, "infra/net/main.tf")
	r = f.run("pull_request", prEvent(t, "pull_request.opened.json", 3, shaB), nil)
	if !strings.Contains(r.stdout, "Function not found in provider") {
		t.Errorf("a call of a function the provider lacks: want it refused at the call\n%s", r.stdout)
	}
}

// writeCheckout writes files (repository path → text) into the checkout,
// as a schedule's checkout of the default branch holds them.
func (f *fixture) writeCheckout(t *testing.T, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(f.checkout, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(text), 0o644))
	}
}
