package action_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
	"github.com/kyku/action/internal/workspace"
)

// providerFixture is a fixture whose default branch uses the framework
// test provider, installed from a mirror in the checkout (input
// plugin-mirror) and locked on the default branch.
func providerFixture(t *testing.T) (*fixture, string, func(extra string) string) {
	t.Helper()
	f := newFixture(t)
	mirror := filepath.Join(f.checkout, "mirror")
	tfplugintest.Mirror(t, mirror, tfplugintest.Framework, tfplugintest.SDK)
	cloud := filepath.Join(f.dir, "items")
	must(t, os.MkdirAll(cloud, 0o755))
	cfg := func(extra string) string {
		return "providers:\n  fwtest: { source: kyku/fwtest, config: { dir: \"" + cloud + "\" } }\n" + extra + f.config("web") +
			"  item: { type: fwtest_item, properties: { name: item, value: \"${web.privateIp}\" } }\n"
	}
	// The lock as kyku init writes it, committed on the default branch.
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "kyku.yaml"), []byte(cfg("")), 0o644))
	c, err := config.Load(filepath.Join(dir, "kyku.yaml"))
	must(t, err)
	if _, _, err := workspace.Init(t.Context(), c, workspace.Settings{BaseDir: dir, Plugins: workspace.Plugins{Mirror: mirror}}, false); err != nil {
		t.Fatal(err)
	}
	lock, err := os.ReadFile(workspace.LockPath(dir))
	must(t, err)
	f.setRef(defaultRef, cfg(""))
	f.srv.SetFile(repoName, defaultRef, "infra/.kyku.lock.hcl", lock)
	f.base["INPUT_PLUGIN-MIRROR"] = "mirror"
	f.base["KYKU_PLUGIN_CACHE"] = filepath.Join(f.dir, "plugin-cache")
	return f, cloud, cfg
}

// TestPullRequestProvidersAreTheDefaultBranchs: a pull request's plan runs
// the providers the default branch declares and locks. A resource of a
// locked provider is planned beside Kyku's own; a pull request that adds a
// provider (and a lock for it) gets a refusal and the notice, and its
// provider never runs; one that swaps the binary in the mirror it
// controls is refused by the default branch's hashes.
func TestPullRequestProvidersAreTheDefaultBranchs(t *testing.T) {
	f, cloud, cfg := providerFixture(t)
	f.setRef(shaA, cfg("")+"  more: { type: fwtest_item, properties: { name: more } }\n")
	f.setCheckout(cfg(""))
	f.addPR(2, shaA)
	r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil)
	wantCode(t, r, 0)
	body := f.srv.Comments(repoName, 2)[0].Body
	if !strings.Contains(body, "fwtest_item") || !strings.Contains(body, "more") || strings.Contains(body, "changes the Terraform providers") {
		t.Errorf("plan comment of a pull request using a locked provider:\n%s", body)
	}

	// A pull request adds a provider of its own choosing, with a lock
	// that names it.
	added := strings.Replace(cfg(""), "providers:\n", "providers:\n  sdktest: { source: kyku/sdktest, config: { dir: \""+cloud+"-sdk\" } }\n", 1) +
		"  evil: { type: sdktest_item, properties: { name: evil } }\n"
	f.setRef(shaB, added)
	f.srv.SetFile(repoName, shaB, "infra/.kyku.lock.hcl", []byte("# the pull request's own lock\n"))
	f.addPR(3, shaB)
	f.srv.UpdatePullRequest(repoName, 3, func(pr *githubtest.PullRequest) { pr.Files = []string{"infra/kyku.yaml", "infra/.kyku.lock.hcl"} })
	r = f.run("pull_request", prEvent(t, "pull_request.opened.json", 3, shaB), nil)
	if r.code == 0 {
		t.Errorf("a pull request's own provider was planned:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "sdktest_item") || !strings.Contains(r.stdout, "not among the providers this run starts") {
		t.Errorf("the refusal does not say why:\n%s", r.stdout)
	}
	if c := f.srv.Comments(repoName, 3); len(c) != 1 || !strings.Contains(c[0].Body, "changes the Terraform providers (`providers.sdktest`, `infra/.kyku.lock.hcl`)") {
		t.Errorf("the plan comment does not lead with the providers it changes: %+v", c)
	}
	if noSDKRan(t, cloud) {
		t.Error("the pull request's provider ran")
	}

	// The binary in the mirror (the checkout: the pull request's) is not
	// the one the default branch locked.
	bin := filepath.Join(f.checkout, "mirror", "registry.opentofu.org/kyku/fwtest/0.1.0", runtime.GOOS+"_"+runtime.GOARCH, tfplugintest.Framework.Executable())
	data, err := os.ReadFile(bin)
	must(t, err)
	must(t, os.WriteFile(bin, append(data, '!'), 0o755))
	r = f.run("pull_request", prEvent(t, "pull_request.synchronize.json", 2, shaA), nil)
	if r.code == 0 || !strings.Contains(r.stdout, "matches none of the hashes") {
		t.Errorf("a swapped provider binary was not refused: exit %d\n%s", r.code, r.stdout)
	}
}

// noSDKRan reports whether the sdktest provider made anything.
func noSDKRan(t *testing.T, cloud string) bool {
	t.Helper()
	left, _ := filepath.Glob(filepath.Join(cloud+"-sdk", "*"))
	return len(left) > 0
}

// TestProviderRenewSettingRead: the Action reads KYKU_PROVIDER_RENEW as
// the CLI does; a bad value fails the run with its name.
func TestProviderRenewSettingRead(t *testing.T) {
	f, _, cfg := providerFixture(t)
	f.setRef(shaA, cfg(""))
	f.setCheckout(cfg(""))
	f.addPR(2, shaA)
	f.base["KYKU_PROVIDER_RENEW"] = "sometimes"
	r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil)
	if r.code == 0 || !strings.Contains(r.stdout, `KYKU_PROVIDER_RENEW="sometimes"`) {
		t.Errorf("a bad KYKU_PROVIDER_RENEW: exit %d\n%s", r.code, r.stdout)
	}
	f.base["KYKU_PROVIDER_RENEW"] = "off"
	r = f.run("pull_request", prEvent(t, "pull_request.synchronize.json", 2, shaA), nil)
	wantCode(t, r, 0)
}
