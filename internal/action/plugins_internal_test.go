package action

import (
	"slices"
	"testing"
)

// TestProvidersGetNoneOfTheActionsTokens: a provider process gets the
// step's environment (its cloud's credentials) without the Action's
// inputs (the GitHub token among them), the job's token, the runner's
// service tokens or the state's passphrase.
func TestProvidersGetNoneOfTheActionsTokens(t *testing.T) {
	env := []string{
		"AWS_ACCESS_KEY_ID=AKIA", "PATH=/usr/bin", "INPUT_GITHUB-TOKEN=ghs_x", "GITHUB_TOKEN=ghs_y",
		"ACTIONS_RUNTIME_TOKEN=rt", "ACTIONS_CACHE_URL=u", "KYKU_STATE_PASSPHRASE=pw", "KYKU_HTTP_PASSWORD=hp",
		"ACTIONS_ID_TOKEN_REQUEST_URL=oidc",
	}
	got := providerEnv(func() []string { return env })
	want := []string{"ACTIONS_ID_TOKEN_REQUEST_URL=oidc", "AWS_ACCESS_KEY_ID=AKIA", "PATH=/usr/bin"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("provider environment %v, want %v", got, want)
	}
}
