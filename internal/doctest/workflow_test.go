package doctest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// actionSpec is what action.yml declares.
type actionSpec struct {
	Inputs  map[string]struct{ Required bool } `yaml:"inputs"`
	Outputs map[string]any                     `yaml:"outputs"`
}

func readAction(t *testing.T, root string) actionSpec {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionSpec
	if err := yaml.Unmarshal(src, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if len(a.Inputs) == 0 || len(a.Outputs) == 0 {
		t.Fatal("action.yml declares no inputs or no outputs")
	}
	return a
}

// workflow is the part of a GitHub workflow the Action's page must get right.
type workflow struct {
	On          map[string]any    `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]struct {
		Permissions map[string]string `yaml:"permissions"`
		Steps       []step            `yaml:"steps"`
	} `yaml:"jobs"`
}

type step struct {
	Uses string         `yaml:"uses"`
	With map[string]any `yaml:"with"`
}

// checkWorkflow says what is wrong with a workflow a page shows: a `with:`
// key of kyku/action that action.yml does not declare, a required input
// missing, or a permission Kyku needs that the workflow does not grant.
func checkWorkflow(src string, a actionSpec) []string {
	var w workflow
	if err := yaml.Unmarshal([]byte(src), &w); err != nil {
		return []string{fmt.Sprintf("not a workflow: %v", err)}
	}
	var problems []string
	kyku := 0
	for name, job := range w.Jobs {
		perms := w.Permissions
		if job.Permissions != nil {
			perms = job.Permissions
		}
		oidc := slices.ContainsFunc(job.Steps, func(st step) bool {
			return strings.HasPrefix(st.Uses, "aws-actions/configure-aws-credentials@")
		})
		for _, st := range job.Steps {
			if !strings.HasPrefix(st.Uses, "kyku/action@") {
				continue
			}
			kyku++
			for key := range st.With {
				if _, ok := a.Inputs[key]; !ok {
					problems = append(problems, fmt.Sprintf("job %s: with: %s is no input of action.yml", name, key))
				}
			}
			for key, in := range a.Inputs {
				if _, ok := st.With[key]; in.Required && !ok {
					problems = append(problems, fmt.Sprintf("job %s: the required input %s is missing", name, key))
				}
			}
			need := map[string][]string{"contents": {"read", "write"}, "pull-requests": {"write"}, "issues": {"write"}}
			if _, ok := w.On["push"]; ok {
				need["actions"] = []string{"read", "write"}
			}
			if oidc {
				need["id-token"] = []string{"write"}
			}
			keys := make([]string, 0, len(need))
			for k := range need {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if !slices.Contains(need[k], perms[k]) {
					problems = append(problems, fmt.Sprintf("job %s: permissions: %s is %q; Kyku needs %s", name, k, perms[k], strings.Join(need[k], " or ")))
				}
			}
		}
	}
	if kyku == 0 {
		problems = append(problems, "no step uses kyku/action")
	}
	sort.Strings(problems)
	return problems
}

// TestActionPageWorkflows: every workflow the README and the Action's page
// show (a yaml block with jobs:) uses only inputs action.yml declares and
// grants the permissions Kyku needs (id-token: write where credentials
// come from OIDC); the Action's page has one for AWS and one for Hetzner.
func TestActionPageWorkflows(t *testing.T) {
	root := repoRoot(t)
	a := readAction(t, root)
	clouds := map[string]bool{}
	for _, rel := range []string{"README.md", "docs/action.md"} {
		p := readPage(t, root, rel)
		found := 0
		for _, b := range p.blocks {
			src := strings.Join(b.lines, "\n")
			if b.info != "yaml" || !regexp.MustCompile(`(?m)^jobs:`).MatchString(src) {
				continue
			}
			found++
			for _, problem := range checkWorkflow(src, a) {
				t.Errorf("%s:%d: %s", rel, b.line, problem)
			}
			switch {
			case rel != "docs/action.md":
			case strings.Contains(src, "aws-actions/configure-aws-credentials@"):
				clouds["aws"] = true
			case strings.Contains(src, "HCLOUD_TOKEN"):
				clouds["hetzner"] = true
			}
		}
		if found == 0 {
			t.Errorf("%s shows no workflow", rel)
		}
	}
	if !clouds["aws"] || !clouds["hetzner"] {
		t.Errorf("docs/action.md shows complete workflows for %v; want aws and hetzner", clouds)
	}
}

// TestCheckWorkflow: the workflow checker finds each mistake.
func TestCheckWorkflow(t *testing.T) {
	a := actionSpec{Inputs: map[string]struct{ Required bool }{"config": {}, "environment": {}}}
	const ok = `
on: { pull_request: {}, push: {} }
permissions: { contents: read, pull-requests: write, issues: write, actions: read, id-token: write }
jobs:
  kyku:
    steps:
      - uses: kyku/action@v1
        with: { config: kyku.yaml }
      - uses: aws-actions/configure-aws-credentials@v4
`
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"complete", ok, nil},
		{"an unknown input", strings.Replace(ok, "config: kyku.yaml", "confg: kyku.yaml", 1), []string{"job kyku: with: confg is no input of action.yml"}},
		{"no id-token with OIDC", strings.Replace(ok, ", id-token: write", "", 1), []string{`job kyku: permissions: id-token is ""; Kyku needs write`}},
		{"issues read only", strings.Replace(ok, "issues: write", "issues: read", 1), []string{`job kyku: permissions: issues is "read"; Kyku needs write`}},
		{"no actions: read with push", strings.Replace(ok, ", actions: read", "", 1), []string{`job kyku: permissions: actions is ""; Kyku needs read or write`}},
		{"no kyku step", strings.Replace(ok, "kyku/action@v1", "other/action@v1", 1), []string{"no step uses kyku/action"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, checkWorkflow(tc.src, a)); diff != "" {
				t.Errorf("checkWorkflow (-want +got):\n%s", diff)
			}
		})
	}
}

// tableNames are the names in the first column (`name`, `a`, `b`) of the
// table under the page's heading "## "+section.
func tableNames(p page, section string) []string {
	var names []string
	in := false
	cell := regexp.MustCompile("`([a-z][a-z0-9-]*)`")
	for _, line := range p.prose {
		if strings.HasPrefix(line, "#") {
			in = strings.TrimSpace(strings.TrimLeft(line, "#")) == section
			continue
		}
		if !in || !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.SplitN(line, "|", 3)[1]
		for _, m := range cell.FindAllStringSubmatch(first, -1) {
			names = append(names, m[1])
		}
	}
	sort.Strings(names)
	return names
}

// TestActionPageTablesMatchActionYml: the Inputs and Outputs tables of the
// Action's page name every input and output of action.yml, and nothing else.
func TestActionPageTablesMatchActionYml(t *testing.T) {
	root := repoRoot(t)
	a := readAction(t, root)
	p := readPage(t, root, "docs/action.md")
	for _, tc := range []struct {
		section string
		want    []string
	}{
		{"Inputs", keys(a.Inputs)},
		{"Outputs", keys(a.Outputs)},
	} {
		if diff := cmp.Diff(tc.want, tableNames(p, tc.section)); diff != "" {
			t.Errorf("docs/action.md's %s table against action.yml (-action.yml +docs/action.md):\n%s", tc.section, diff)
		}
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
