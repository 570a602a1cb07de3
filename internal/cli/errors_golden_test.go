package cli_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCommandErrorsGolden: what kyku says, and the exit code, when it is
// called wrongly — an unknown command or flag, arguments that do not go
// together, a missing or extra argument, a bad value — one invocation
// each: testdata/command-errors.golden.
func TestCommandErrorsGolden(t *testing.T) {
	k := newKyku(t, cfg)
	var doc strings.Builder
	for _, args := range [][]string{
		{"plna"},
		{"plan", "--bogus"},
		{"plan", "--format", "yaml"},
		{"plan", "--destroy", "--target", "web"},
		{"plan", "web"},
		{"plan", "--var", "novalue"},
		{"plan", "--var", "a=1", "--var", "a=2"},
		{"plan", "-e", "../prod"},
		{"plan", "--sandbox-file", "/etc/hosts"},
		{"graph", "--format", "png"},
		{"import", "web"},
		{"state"},
		{"state", "frob"},
		{"state", "rekey"},
		{"output", "a", "b"},
		{"output", "--flat", "webIp"},
		{"output", "webIp"},
		{"force-unlock"},
		{"providers"},
	} {
		code, _, errOut := k.run("", args...)
		if code == 0 {
			t.Errorf("kyku %s: exit 0", strings.Join(args, " "))
		}
		doc.WriteString("$ kyku " + strings.Join(args, " ") + "\nexit " + strconv.Itoa(code) + "\n" + errOut + "\n")
	}
	golden(t, "command-errors.golden", strings.ReplaceAll(doc.String(), k.dir+string(filepath.Separator), ""))
}
