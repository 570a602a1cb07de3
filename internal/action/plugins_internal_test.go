package action

import (
	"slices"
	"testing"

	githubactions "github.com/sethvargo/go-githubactions"
)

// TestProvidersGetNoneOfTheActionsTokens: a provider process gets the
// step's environment (its cloud's credentials) without the Action's
// inputs (the GitHub token among them), the job's token, the runner's
// service tokens, the state's passphrase or a private registry's token.
func TestProvidersGetNoneOfTheActionsTokens(t *testing.T) {
	env := []string{
		"AWS_ACCESS_KEY_ID=AKIA", "PATH=/usr/bin", "INPUT_GITHUB-TOKEN=ghs_x", "GITHUB_TOKEN=ghs_y",
		"ACTIONS_RUNTIME_TOKEN=rt", "ACTIONS_CACHE_URL=u", "KYKU_STATE_PASSPHRASE=pw", "KYKU_HTTP_PASSWORD=hp",
		"ACTIONS_ID_TOKEN_REQUEST_URL=oidc", "TF_TOKEN_app_terraform_io=registry-token",
	}
	got := providerEnv(func() []string { return env })
	want := []string{"ACTIONS_ID_TOKEN_REQUEST_URL=oidc", "AWS_ACCESS_KEY_ID=AKIA", "PATH=/usr/bin"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("provider environment %v, want %v", got, want)
	}
}

// TestSandboxedWhenTheConfigMayBeAPullRequests: providers run sandboxed
// (input provider-sandbox: pull-requests, the default) whenever the
// configuration may be one nobody reviewed into the default branch; a
// push to the default branch and its checkout run what was merged.
func TestSandboxedWhenTheConfigMayBeAPullRequests(t *testing.T) {
	for _, tc := range []struct {
		event, ref string
		pr         int
		want       bool
	}{
		{"pull_request", "refs/pull/2/merge", 0, true},
		{"pull_request_target", "refs/heads/main", 0, true},
		{"issue_comment", "refs/heads/main", 0, true},
		{"merge_group", "refs/heads/gh-readonly-queue/main/pr-2", 0, true},
		{"workflow_dispatch", "refs/heads/main", 2, true},
		{"push", "refs/heads/feature", 0, true},
		{"push", "refs/heads/main", 0, false},
		{"schedule", "refs/heads/main", 0, false},
		{"workflow_dispatch", "refs/heads/main", 0, false},
	} {
		r := &run{ghctx: &githubactions.GitHubContext{EventName: tc.event}, ev: &event{Ref: tc.ref}, in: Inputs{PullRequest: tc.pr}}
		r.ev.Repository.DefaultBranch = "main"
		if got := r.mayRunPullRequestConfig(); got != tc.want {
			t.Errorf("%s on %s (pull request %d): sandboxed %v, want %v", tc.event, tc.ref, tc.pr, got, tc.want)
		}
	}
}
