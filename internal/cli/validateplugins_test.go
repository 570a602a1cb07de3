package cli_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// runWithEnviron runs kyku as k.run does, the Terraform providers given
// environ.
func (k *kyku) runWithEnviron(environ []string, args ...string) (int, string, string) {
	k.t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Run(k.t.Context(), append(args, "-c", k.dir+"/kyku.yaml", "--state-dir", k.dir+"/.kyku"), cli.Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut,
		Getenv:    func(name string) string { return k.env[name] },
		Environ:   func() []string { return environ },
		Providers: provider.Registry{"sim": sim.Factory},
		Hostname:  "testhost", PID: 4242,
	})
	return code, out.String(), errOut.String()
}

// TestValidateNeedsNoProviderCredentials: kyku validate checks a Terraform
// provider's resources against its schema and its own validation without
// configuring it, as terraform validate does: where the provider's
// ConfigureProvider fails for want of credentials, a good configuration
// is valid and a bad attribute is reported at its file:line:col; plan,
// which configures it, fails for the credentials.
func TestValidateNeedsNoProviderCredentials(t *testing.T) {
	noCredentials := []string{"FWTEST_REQUIRE_CREDENTIALS=1"}
	k := newProviderKyku(t, tfplugintest.Framework, providerHead+"resources:\n  one: { type: TP_item, properties: { name: one } }\n")
	for _, tc := range []struct {
		name, resources string
		want            []string // on stderr; none: valid
	}{
		{name: "valid", resources: "  one: { type: TP_item, properties: { name: one } }\n"},
		{name: "an attribute the schema lacks", resources: "  one:\n    type: TP_item\n    properties:\n      name: one\n      colour: red\n",
			want: []string{`kyku.yaml:8:7: resource "one" (fwtest_item): property "colour": unsupported argument "colour"`}},
		{name: "a value the provider's own validation refuses", resources: "  one: { type: TP_item, properties: { name: one, value: \"has space\" } }\n",
			want: []string{`kyku.yaml:4:54: resource "one" (fwtest_item): property "value": invalid value: the test cloud refuses spaces in value`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k.writeTP(providerHead + "resources:\n" + tc.resources)
			code, out, errOut := k.runWithEnviron(noCredentials, "validate")
			if len(tc.want) == 0 {
				if code != 0 || !strings.Contains(out, "The configuration is valid") {
					t.Fatalf("validate: exit %d\n%s%s", code, out, errOut)
				}
				return
			}
			if code != 1 {
				t.Fatalf("validate: exit %d, want 1\n%s%s", code, out, errOut)
			}
			for _, want := range tc.want {
				if !strings.Contains(errOut, want) {
					t.Errorf("validate's errors lack\n  %s\ngot:\n%s", want, errOut)
				}
			}
			if strings.Contains(errOut, "credentials") {
				t.Errorf("validate configured the provider:\n%s", errOut)
			}
		})
	}

	k.writeTP(providerHead + "resources:\n  one: { type: TP_item, properties: { name: one } }\n")
	if code, out, errOut := k.runWithEnviron(noCredentials, "plan"); code != 1 || !strings.Contains(errOut, "set FWTEST_CREDENTIALS") {
		t.Errorf("plan without credentials: exit %d, want 1 and the provider's refusal\n%s%s", code, out, errOut)
	}
	if code, out, errOut := k.runWithEnviron(append(noCredentials, "FWTEST_CREDENTIALS=yes"), "plan"); code != 0 {
		t.Errorf("plan with credentials: exit %d\n%s%s", code, out, errOut)
	}
}
