package action_test

import (
	"os"
	"strings"
	"testing"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/workspace"
)

// envYAML is one configuration for two environments (staging: one small
// Vm; prod: three large), with a sensitive variable given outside it.
func (f *fixture) envYAML() string {
	return "provider: sim\n" + f.backend + `variables:
  size:     { type: string, default: small }
  replicas: { type: number, default: 1 }
  dbPass:   { type: string, sensitive: true }
environments:
  staging: {}
  prod:
    variables: { size: large, replicas: 3 }
resources:
  web:
    type: Vm
    count: "${var.replicas}"
    properties: { image: debian-12, size: "${var.size}", userData: "DB_PASS=${var.dbPass}" }
`
}

const dbPass = "pw-from-the-vars-input"

// The Action plans each environment with its own values: input
// environment selects environments.<env>.variables, input vars and
// KYKU_VAR_<name> come before them.
func TestActionPlansEachEnvironmentWithItsValues(t *testing.T) {
	f := newFixture(t)
	f.setRef(defaultRef, f.envYAML())
	f.setCheckout(f.envYAML())
	f.setRef(shaA, f.envYAML())
	f.addPR(2, shaA)
	vars := map[string]string{"INPUT_VARS": "# the database\ndbPass=" + dbPass + "\n"}
	run := func(env string, extra map[string]string) result {
		t.Helper()
		e := map[string]string{"INPUT_ENVIRONMENT": env}
		for k, v := range vars {
			e[k] = v
		}
		for k, v := range extra {
			e[k] = v
		}
		r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), e)
		wantCode(t, r, 0)
		return r
	}
	comment := func(env string) string {
		for _, c := range f.srv.Comments(repoName, 2) {
			if strings.Contains(c.Body, "<!-- kyku:plan env="+env+" -->") {
				return c.Body
			}
		}
		t.Fatalf("no plan comment for %s", env)
		return ""
	}

	r := run("staging", nil)
	wantOutputs(t, r, map[string]string{"creates": "1", "destroys": "0"})
	if s := comment("staging"); !strings.Contains(s, "+   size: small") || strings.Contains(s, "web[1]") {
		t.Errorf("staging comment:\n%s", s)
	}
	r = run("prod", nil)
	wantOutputs(t, r, map[string]string{"creates": "3"})
	if s := comment("prod"); !strings.Contains(s, "+   size: large") || !strings.Contains(s, "web[2]") {
		t.Errorf("prod comment:\n%s", s)
	}
	if !strings.Contains(r.stdout, "::add-mask::"+dbPass) {
		t.Errorf("the sensitive variable is not masked in the log:\n%s", r.stdout)
	}
	for _, c := range f.srv.Comments(repoName, 2) {
		if strings.Contains(c.Body, dbPass) {
			t.Errorf("a comment shows the sensitive value:\n%s", c.Body)
		}
	}
	plan, err := os.ReadFile(r.outputs["plan-file"])
	must(t, err)
	if strings.Contains(string(plan), dbPass) || strings.Contains(r.summary, dbPass) {
		t.Error("plan.json or the summary shows the sensitive value")
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.Contains(line, dbPass) && !strings.HasPrefix(line, "::add-mask::") {
			t.Errorf("the log shows the sensitive value: %q", line)
		}
	}

	// KYKU_VAR_ from the step's env beats the environment's values; input
	// vars beat both.
	r = run("prod", map[string]string{"KYKU_VAR_replicas": "2", "KYKU_VAR_size": "medium"})
	wantOutputs(t, r, map[string]string{"creates": "2"})
	if s := comment("prod"); !strings.Contains(s, "+   size: medium") {
		t.Errorf("prod comment with KYKU_VAR_size:\n%s", s)
	}
	vars["INPUT_VARS"] += "replicas=5\n"
	r = run("prod", map[string]string{"KYKU_VAR_replicas": "2"})
	wantOutputs(t, r, map[string]string{"creates": "5"})

	// A value missing in every source is a positioned config error.
	delete(vars, "INPUT_VARS")
	r = f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), map[string]string{"INPUT_ENVIRONMENT": "staging"})
	wantCode(t, r, 1)
	if !strings.Contains(r.stdout, "::error col=3,file="+configPath+",line=6,title=kyku config::variable \"dbPass\" has no value in environment \"staging\"") {
		t.Errorf("log:\n%s", r.stdout)
	}
	// Bad input vars are refused before anything runs, the value unquoted.
	r = f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), map[string]string{"INPUT_VARS": "dbPass " + dbPass})
	wantCode(t, r, 1)
	if !strings.Contains(r.stdout, "input vars: line 1 is not name=value") || strings.Contains(r.stdout, dbPass) {
		t.Errorf("log:\n%s", r.stdout)
	}
}

// A pull request that only adds a moved entry shows a plan of moves: no
// destroy, no create.
func TestActionMovedOnlyPullRequest(t *testing.T) {
	f := newFixture(t)
	old := "provider: sim\n" + f.backend + "resources:\n  app-server:\n    type: Vm\n    properties: { image: debian-12 }\n"
	f.setRef(defaultRef, old)
	f.setCheckout(old)
	// What the default branch describes is applied (as its merge did).
	cfg, err := config.Parse([]config.File{{Name: configPath, Data: []byte(old)}})
	must(t, err)
	ws, err := workspace.Open(t.Context(), cfg, f.settings(), provider.Registry{"sim": sim.Factory})
	must(t, err)
	res, err := ws.Engine.Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
	must(t, err)
	must(t, res.Err())

	f.setRef(shaA, "provider: sim\n"+f.backend+`resources:
  web:
    type: Vm
    count: 1
    properties: { image: debian-12 }
moved:
  - { from: app-server, to: "web[0]" }
`)
	f.addPR(2, shaA)
	r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil)
	wantCode(t, r, 0)
	wantOutputs(t, r, map[string]string{"has-changes": "true", "creates": "0", "destroys": "0", "replaces": "0", "moves": "1", "imports": "0"})
	body := f.srv.Comments(repoName, 2)[0].Body
	for _, want := range []string{"0 to destroy, 0 no-op, 1 to move", `→ move Vm web[0] (from "app-server")`} {
		if !strings.Contains(body, want) {
			t.Errorf("plan comment lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "[!CAUTION]") {
		t.Errorf("the comment warns of destroys:\n%s", body)
	}
}
