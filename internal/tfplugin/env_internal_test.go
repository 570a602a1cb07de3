package tfplugin

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestProviderEnv(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{nil, []string{"TF_LOG_SDK=OFF", "TF_LOG_PROVIDER=OFF"}},
		{[]string{"AWS_REGION=eu-west-1"}, []string{"AWS_REGION=eu-west-1", "TF_LOG_SDK=OFF", "TF_LOG_PROVIDER=OFF"}},
		// The user asks for provider logs: nothing is silenced.
		{[]string{"TF_LOG=DEBUG"}, []string{"TF_LOG=DEBUG"}},
		{[]string{"TF_LOG_PROVIDER=TRACE"}, []string{"TF_LOG_PROVIDER=TRACE", "TF_LOG_SDK=OFF"}},
	} {
		if d := cmp.Diff(tc.want, providerEnv(tc.in)); d != "" {
			t.Errorf("providerEnv(%v) (-want +got):\n%s", tc.in, d)
		}
	}
}
