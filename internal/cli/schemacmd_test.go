package cli_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/config"
)

// TestSchemaCommand: kyku schema prints the JSON Schema of kyku.yaml, the
// one the loader is tested against, as JSON on stdout, reading nothing
// and writing nothing; it takes no arguments; its help says what to do
// with it.
func TestSchemaCommand(t *testing.T) {
	t.Chdir(t.TempDir())
	code, out, errOut := runBare(t, cli.Env{}, "schema")
	if code != 0 || errOut != "" {
		t.Fatalf("kyku schema: exit %d, stderr %q", code, errOut)
	}
	if out != string(config.JSONSchema()) {
		t.Errorf("kyku schema does not print config.JSONSchema():\n%.300s", out)
	}
	var schema map[string]any
	if err := json.Unmarshal([]byte(out), &schema); err != nil {
		t.Fatalf("kyku schema prints no JSON: %v", err)
	}
	if got := schema["$schema"]; got != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema is %v, want draft 2020-12", got)
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("kyku schema wrote %v", entries)
	}
	if code, _, errOut := runBare(t, cli.Env{}, "schema", "kyku.yaml"); code != 1 || !strings.Contains(errOut, `schema takes no arguments, got "kyku.yaml"`) {
		t.Errorf("kyku schema kyku.yaml: exit %d, stderr %q", code, errOut)
	}
	code, out, _ = runBare(t, cli.Env{}, "schema", "--help")
	if code != 0 || !strings.HasPrefix(out, "Usage: kyku schema [flags]\n") || !strings.Contains(out, "yaml-language-server") {
		t.Errorf("kyku schema --help: exit %d\n%s", code, out)
	}
	if _, out, _ := runBare(t, cli.Env{}, "--help"); !strings.Contains(out, "\n  schema ") {
		t.Errorf("kyku --help does not list schema:\n%s", out)
	}
}
