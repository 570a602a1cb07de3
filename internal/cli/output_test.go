package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOutputJSONIsTerraformsShape: kyku output --json (and -json) prints
// terraform output -json's { name: { sensitive, type, value } }, types in
// Terraform's syntax; a sensitive output is marked and its value is null
// (never in clear in the JSON of every output, which lands in CI logs);
// --flat is the plain { name: value } map, masked alike; asked for by name
// it is printed in clear, as terraform output NAME does.
func TestOutputJSONIsTerraformsShape(t *testing.T) {
	k := newKyku(t, envConfig)
	k.ok("apply", "-e", "prod", "--auto-approve")
	ips := k.ok("output", "-e", "prod", "--json", "ips")
	var ipList []any
	if err := json.Unmarshal([]byte(ips), &ipList); err != nil || len(ipList) != 3 {
		t.Fatalf("output --json ips = %q (%v), want a list of 3", ips, err)
	}
	for _, flag := range []string{"--json", "-json"} {
		out := k.ok("output", "-e", "prod", flag)
		if strings.Contains(out, "prod-pw-0002") {
			t.Fatalf("output %s shows the sensitive value:\n%s", flag, out)
		}
		var got map[string]map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("output %s: %v\n%s", flag, err, out)
		}
		want := map[string]map[string]any{
			"ips":   {"sensitive": false, "type": []any{"tuple", []any{"string", "string", "string"}}, "value": ipList},
			"first": {"sensitive": false, "type": "string", "value": ipList[0]},
			"pass":  {"sensitive": true, "type": "string", "value": nil},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("output %s (-want +got):\n%s", flag, diff)
		}
	}
	var flat map[string]any
	out := k.ok("output", "-e", "prod", "--flat")
	if err := json.Unmarshal([]byte(out), &flat); err != nil {
		t.Fatalf("output --flat: %v\n%s", err, out)
	}
	if diff := cmp.Diff(map[string]any{"ips": ipList, "first": ipList[0], "pass": nil}, flat); diff != "" {
		t.Errorf("output --flat (-want +got):\n%s", diff)
	}
	if out := k.ok("output", "-e", "prod", "--json", "pass"); out != `"prod-pw-0002"`+"\n" {
		t.Errorf("output --json pass = %q, want the value asked for by name, in clear", out)
	}
	if code, _, errOut := k.run("", "output", "-e", "prod", "--flat", "pass"); code != 1 || !strings.Contains(errOut, "--flat prints every output") {
		t.Errorf("output --flat NAME: exit %d, %s", code, errOut)
	}
}
