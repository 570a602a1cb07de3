package action_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestPullRequestProvidersRunSandboxed: a pull request adds a data source
// of a locked provider that tries every escape (fwtest_escape) and shows
// what it found in its plan comment. Sandboxed (the default for a pull
// request), it finds nothing of the job's: not the Action's environment,
// no other process, no file outside its directory, no write, no metadata
// stand-in (denied by KYKU_PROVIDER_DENY as the metadata addresses are;
// only when the Action runs as root), and the comment shows none of it;
// it has the file input provider-files grants. With provider-sandbox: off
// every escape gets through, into the comment.
func TestPullRequestProvidersRunSandboxed(t *testing.T) {
	tfplugintest.RequireSandbox(t, &tfplugin.Sandbox{Network: tfplugin.NetworkBest})
	e := tfplugintest.NewEscapes(t)
	f, _, cfg := providerFixture(t)
	must(t, os.WriteFile(filepath.Join(f.checkout, "granted.json"), []byte("granted-file-content"), 0o600))
	granted := filepath.Join(f.checkout, "granted.json")
	pr := cfg("data:\n  look: { type: fwtest_escape, properties: "+e.YAML([]string{"GITHUB_TOKEN"}, granted)+" }\n") +
		"  shown: { type: Vpc, properties: { cidr: 10.0.0.0/16, tags: { report: \"${look.report}\" } } }\n"
	f.setRef(shaA, pr)
	f.setCheckout(pr)
	f.addPR(2, shaA)
	f.base["KYKU_PROVIDER_DENY"] = "127.0.0.2/32"
	f.base["INPUT_PROVIDER-FILES"] = "\n  granted.json\n"
	var metadata []string
	if os.Geteuid() != 0 {
		metadata = []string{"metadata connect", "metadata fetch"} // the runner's network as it is
	}
	for _, tc := range []struct {
		sandbox string
		want    []string
	}{
		{"", metadata},
		{"off", tfplugintest.AllEscapes()},
	} {
		t.Run("provider-sandbox="+tc.sandbox, func(t *testing.T) {
			os.Remove(e.Outside)
			r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), map[string]string{"INPUT_PROVIDER-SANDBOX": tc.sandbox})
			wantCode(t, r, 0)
			report := tfplugintest.ReportIn(t, r.outputs["plan-file"], "shown")
			if diff := cmp.Diff(tc.want, e.Succeeded(report)); diff != "" {
				t.Errorf("escapes that got through (-want +got):\n%s\n%s", diff, report)
			}
			if !strings.Contains(report, "read "+granted+": granted-file-content") || !e.ReachedCloud(report) {
				t.Errorf("the provider lacked its file or its network:\n%s", report)
			}
			// The comment shows the start of the report: what the parent's
			// environment gave.
			comments := f.srv.Comments(repoName, 2)
			body := comments[len(comments)-1].Body
			if leaked := !strings.Contains(body, "parent environ: error: "); leaked != (tc.sandbox == "off") {
				t.Errorf("the plan comment shows the Action's environment: %v\n%s", leaked, body)
			}
			for _, secret := range []string{e.BotSecret, e.MetadataSecret} {
				if tc.sandbox != "off" && strings.Contains(body, secret) {
					t.Errorf("the plan comment shows %q", secret)
				}
			}
		})
	}
}
