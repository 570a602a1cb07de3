package tfplugin

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestProviderEnv(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{nil, []string{"TF_LOG_SDK=OFF", "TF_LOG_PROVIDER=OFF", "TF_LOG_SDK_PROTO=OFF", "TF_LOG_SDK_FRAMEWORK=OFF", "TF_LOG_SDK_HELPER_SCHEMA=OFF", "TF_LOG_SDK_HELPER_RESOURCE=OFF", "TF_LOG_SDK_MUX=OFF"}},
		{[]string{"AWS_REGION=eu-west-1"}, []string{"AWS_REGION=eu-west-1", "TF_LOG_SDK=OFF", "TF_LOG_PROVIDER=OFF", "TF_LOG_SDK_PROTO=OFF", "TF_LOG_SDK_FRAMEWORK=OFF", "TF_LOG_SDK_HELPER_SCHEMA=OFF", "TF_LOG_SDK_HELPER_RESOURCE=OFF", "TF_LOG_SDK_MUX=OFF"}},
		// The user asks for provider logs: nothing is silenced.
		{[]string{"TF_LOG=DEBUG"}, []string{"TF_LOG=DEBUG"}},
		{[]string{"TF_LOG_PROVIDER=TRACE"}, []string{"TF_LOG_PROVIDER=TRACE", "TF_LOG_SDK=OFF", "TF_LOG_SDK_PROTO=OFF", "TF_LOG_SDK_FRAMEWORK=OFF", "TF_LOG_SDK_HELPER_SCHEMA=OFF", "TF_LOG_SDK_HELPER_RESOURCE=OFF", "TF_LOG_SDK_MUX=OFF"}},
	} {
		if d := cmp.Diff(tc.want, providerEnv(tc.in)); d != "" {
			t.Errorf("providerEnv(%v) (-want +got):\n%s", tc.in, d)
		}
	}
}
