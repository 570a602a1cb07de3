package review

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kyku/action/internal/github"
)

// repoFiles is a repository's files by commit, and the files a pull
// request changes: Files as the front doors' *github.Repo answers.
type repoFiles struct {
	at      map[string]map[string]string // commit → path → content
	changed []string
	reads   int
}

func (f *repoFiles) FileContent(_ context.Context, path, ref string) ([]byte, error) {
	f.reads++
	data, ok := f.at[ref][path]
	if !ok {
		return nil, fmt.Errorf("%s at %s: %w", path, ref, github.ErrNotFound)
	}
	return []byte(data), nil
}

func (f *repoFiles) ChangedFiles(context.Context, int) ([]string, error) { return f.changed, nil }

const (
	mergeBefore = "bbbbbbb000000000000000000000000000000000"
	mergeAt     = "aaaaaaa000000000000000000000000000000000"
	mergeHead   = "ccccccc000000000000000000000000000000000"
	workflow    = ".github/workflows/kyku.yml"
	settingsYML = ".kyku/config.yaml"
)

func isSettingsOrPolicy(f string) bool {
	return f == settingsYML || strings.HasPrefix(f, ".kyku/policies/")
}

// mergeRuleCases are the merges CheckMergeRules judges, with the
// requirement it refuses by (none: applied) and what it says.
var mergeRuleCases = []struct {
	name    string
	m       MergeRules
	files   repoFiles
	base    string // the pull request's base ("" main)
	refused bool
	says    string
}{
	{name: "the Action: the workflow as before", m: MergeRules{At: mergeAt, Before: mergeBefore, WithChanges: true, Files: []string{workflow}, Role: "the workflow"},
		files: repoFiles{at: map[string]map[string]string{mergeAt: {workflow: "a"}, mergeBefore: {workflow: "a"}}}},
	{name: "the Action: the workflow changed", m: MergeRules{At: mergeAt, Before: mergeBefore, WithChanges: true, Files: []string{workflow}, Role: "the workflow that runs Kyku"},
		files: repoFiles{at: map[string]map[string]string{mergeAt: {workflow: "b"}, mergeBefore: {workflow: "a"}}}, refused: true, says: "This merge changes `.github/workflows/kyku.yml`, the workflow that runs Kyku."},
	{name: "the Action: the workflow added", m: MergeRules{At: mergeAt, Before: mergeBefore, WithChanges: true, Files: []string{workflow}},
		files: repoFiles{at: map[string]map[string]string{mergeAt: {workflow: "b"}}}, refused: true, says: "This merge changes `.github/workflows/kyku.yml`, which holds review rules"},
	{name: "the Action: the workflow gone at the merge", m: MergeRules{At: mergeAt, Before: mergeBefore, WithChanges: true, Files: []string{workflow}},
		files: repoFiles{at: map[string]map[string]string{mergeBefore: {workflow: "a"}}}, refused: true, says: "Kyku cannot read `.github/workflows/kyku.yml` at `aaaaaaa`"},
	{name: "the Action: no commit from before", m: MergeRules{At: mergeAt, WithChanges: true, Unknown: "The event names no commit of the default branch from before this merge"},
		refused: true, says: "The event names no commit of the default branch from before this merge, so Kyku cannot tell"},
	{name: "merged into another branch", m: MergeRules{At: mergeAt, Before: mergeBefore}, base: "attacker-base",
		refused: true, says: "Pull request #7 was merged into `attacker-base`, not the default branch `main`"},
	{name: "merged into a branch GitHub does not name", m: MergeRules{At: mergeAt}, base: "-",
		refused: true, says: "Pull request #7 was merged into a branch GitHub does not name, not the default branch `main`"},
	{name: "the bot: no commit to read the rules at", m: MergeRules{IsRule: isSettingsOrPolicy},
		refused: true, says: "Kyku does not know the commit the merge was made on"},
	{name: "the bot: a merge commit, rules untouched", m: MergeRules{At: mergeBefore, IsRule: isSettingsOrPolicy},
		files: repoFiles{changed: []string{"kyku.yaml"}}},
	{name: "the bot: a merge commit, the settings changed", m: MergeRules{At: mergeBefore, IsRule: isSettingsOrPolicy},
		files: repoFiles{changed: []string{settingsYML}, at: map[string]map[string]string{mergeBefore: {settingsYML: "strict"}, mergeHead: {settingsYML: "loose"}}}},
	{name: "the bot: a first parent that holds the pull request's settings", m: MergeRules{At: mergeBefore, IsRule: isSettingsOrPolicy},
		files:   repoFiles{changed: []string{settingsYML}, at: map[string]map[string]string{mergeBefore: {settingsYML: "loose"}, mergeHead: {settingsYML: "loose"}}},
		refused: true, says: "(commit `bbbbbbb`, the merge commit's first parent) already holds this pull request's `.kyku/config.yaml`"},
	{name: "the bot: a first parent without the policy the pull request deletes", m: MergeRules{At: mergeBefore, IsRule: isSettingsOrPolicy},
		files:   repoFiles{changed: []string{".kyku/policies/size.rego"}},
		refused: true, says: "already lacks `.kyku/policies/size.rego`, as this pull request does"},
	{name: "the bot: a squash that changes no rule file", m: MergeRules{At: mergeAt, WithChanges: true, IsRule: isSettingsOrPolicy},
		files: repoFiles{changed: []string{"kyku.yaml", ".kyku.lock.hcl"}}},
	{name: "the bot: a squash that changes a policy", m: MergeRules{At: mergeAt, WithChanges: true, IsRule: isSettingsOrPolicy},
		files:   repoFiles{changed: []string{"kyku.yaml", ".kyku/policies/size.rego"}},
		refused: true, says: "Pull request #7 changes `.kyku/policies/size.rego` and was merged without a merge commit"},
	{name: "the bot: a squash of more files than GitHub lists", m: MergeRules{At: mergeAt, WithChanges: true, IsRule: isSettingsOrPolicy},
		files: repoFiles{changed: make([]string, MaxListedFiles)}, refused: true, says: "GitHub lists at most 3000 files of a pull request"},
}

// TestCheckMergeRules: a merge is judged only by the default branch's
// rules from before it, whichever front door reads them.
func TestCheckMergeRules(t *testing.T) {
	for _, tc := range mergeRuleCases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := checkMergeCase(t, tc.m, tc.base, &tc.files)
			if err != nil {
				t.Fatal(err)
			}
			if (r != nil) != tc.refused || !strings.Contains(r.String(), tc.says) {
				t.Fatalf("refusal %q, want refused %v saying %q", r, tc.refused, tc.says)
			}
			if r != nil && r.Requirement != RequireMergeRules {
				t.Errorf("requirement %s", r.Requirement)
			}
		})
	}
}

func checkMergeCase(t *testing.T, m MergeRules, base string, files *repoFiles) (*Refusal, error) {
	m.DefaultBranch = "main"
	switch base {
	case "":
		base = "main"
	case "-":
		base = ""
	}
	return CheckMergeRules(t.Context(), files, m, &github.PR{Number: 7, BaseRef: base, HeadSHA: mergeHead})
}
