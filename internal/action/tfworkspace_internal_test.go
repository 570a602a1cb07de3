package action

import (
	"strings"
	"testing"

	githubactions "github.com/sethvargo/go-githubactions"
)

// TestTFWorkspaceMustMatchTheEnvironmentInput: a job's TF_WORKSPACE is
// the workspace OpenTofu would plan; the Action plans its environment
// input's, so one naming another workspace is refused, saying which to
// set, rather than planning the wrong workspace's state.
func TestTFWorkspaceMustMatchTheEnvironmentInput(t *testing.T) {
	for _, tt := range []struct {
		tfWorkspace, environment, roots string
		refused                         bool
	}{
		{"", "", "", false},
		{"staging", "staging", "", false},
		{"default", "", "", false},
		{"staging", "", "", true},
		{"prod", "staging", "", true},
		{"staging", "", "off", false}, // no Terraform roots
	} {
		env := map[string]string{"TF_WORKSPACE": tt.tfWorkspace, "INPUT_ENVIRONMENT": tt.environment, "INPUT_TERRAFORM-ROOTS": tt.roots}
		a := githubactions.New(githubactions.WithGetenv(func(k string) string { return env[k] }))
		_, problems := readInputs(a)
		got := strings.Join(problems, "\n")
		refused := strings.Contains(got, "TF_WORKSPACE is")
		if refused != tt.refused {
			t.Errorf("TF_WORKSPACE=%q environment=%q terraform-roots=%q: problems %q, want refused %v", tt.tfWorkspace, tt.environment, tt.roots, got, tt.refused)
		}
		if refused && !strings.Contains(got, "set environment: "+tt.tfWorkspace) {
			t.Errorf("the refusal does not say what to set: %q", got)
		}
	}
}
