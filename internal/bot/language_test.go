package bot_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
)

// envProject is one configuration for two environments: staging one small
// Vm, prod three large ones; the sensitive value comes from the
// configuration (the bot reads no variables from its own environment).
const envProject = `variables:
  size:     { type: string, default: small }
  replicas: { type: number, default: 1 }
  token:    { type: string, sensitive: true, default: bot-secret-token-1 }
environments:
  staging: {}
  prod:
    variables: { size: large, replicas: 3 }
resources:
  web:
    type: Vm
    count: "${var.replicas}"
    properties: { image: debian-12, size: "${var.size}", tags: { token: "${var.token}" } }
`

const twoEnvProject = `projects:
  - config: kyku.yaml
    environments: [staging, prod]
`

// The bot plans each environment of one configuration with that
// environment's own values.
func TestBotPlansEachEnvironmentWithItsValues(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte(twoEnvProject))
	h.gh.SetFile(repoName, defaultBranch, "kyku.yaml", []byte(envProject))
	h.gh.SetFile(repoName, headA, "kyku.yaml", []byte(envProject))
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	byEnv := map[string]string{}
	for _, c := range h.botComments(2) {
		for _, env := range []string{"staging", "prod"} {
			if strings.Contains(c.Body, "<!-- kyku:plan env="+env+" -->") {
				byEnv[env] = c.Body
			}
		}
	}
	if len(byEnv) != 2 {
		t.Fatalf("plan comments by environment: %v", byEnv)
	}
	// staging: 1 small web; prod: 3 large, web[0] to web[2].
	h.wantConversation(2, "one-config-two-environments")
	for env, body := range byEnv {
		if strings.Contains(body, "bot-secret-token-1") {
			t.Errorf("%s comment shows the sensitive value", env)
		}
	}
	for _, r := range h.gh.CheckRuns(repoName) {
		if strings.Contains(r.Summary, "bot-secret-token-1") {
			t.Errorf("check run %s shows the sensitive value", r.Name)
		}
	}
}

// A pull request that only adds a moved entry is planned as moves: nothing
// destroyed, nothing created.
func TestBotPlansAMovedOnlyPullRequestAsMoves(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	old := "resources:\n  app-server:\n    type: Vm\n    properties: { image: debian-12 }\n"
	h.gh.SetFile(repoName, defaultBranch, "kyku.yaml", []byte(old))
	// The default branch's configuration is applied (as a merge would).
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(old)}})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := h.openRepo(t.Context(), cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Engine.Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil); err != nil {
		t.Fatal(err)
	}
	h.gh.SetFile(repoName, headA, "kyku.yaml", []byte(`resources:
  web:
    type: Vm
    count: 1
    properties: { image: debian-12 }
moved:
  - { from: app-server, to: "web[0]" }
`))
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	comments := h.botComments(2)
	if len(comments) != 1 {
		t.Fatalf("%d comments", len(comments))
	}
	body := comments[0].Body
	h.wantConversation(2, "moves-only") // 1 to move: web[0] from app-server
	if strings.Contains(body, "[!CAUTION]") {
		t.Errorf("a moves-only plan warns of destroys:\n%s", body)
	}
	runs := h.gh.CheckRuns(repoName)
	if len(runs) != 1 || runs[0].Title != "0 to create, 0 to update, 0 to replace, 0 to destroy, 1 to move" || runs[0].Conclusion != "success" {
		t.Errorf("check runs %+v", runs)
	}
}
