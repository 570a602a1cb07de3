package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies: the Action authenticates with the workflow's token, so
// it never links the GitHub App machinery (ghinstallation, JWTs), and it
// reads inputs through go-githubactions.
func TestDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := map[string]bool{}
	for _, d := range strings.Fields(string(out)) {
		deps[d] = true
	}
	for d := range deps {
		for _, banned := range []string{"github.com/bradleyfalzon/ghinstallation", "github.com/golang-jwt/jwt", "github.com/kyku/action/internal/bot"} {
			if strings.HasPrefix(d, banned) {
				t.Errorf("cmd/action links %s", d)
			}
		}
	}
	for _, want := range []string{"github.com/sethvargo/go-githubactions", "github.com/kyku/action/internal/review", "github.com/kyku/action/internal/provider/aws", "github.com/kyku/action/internal/provider/hetzner"} {
		if !deps[want] {
			t.Errorf("cmd/action does not link %s", want)
		}
	}
}
