package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfplugin"
)

// TestKykuIsItsOwnKeeper: kyku runs Terraform providers itself when no
// kyku-engine is beside it (go run ./cmd/kyku), with itself as their
// journal keeper, so the keeper's argument is served by kyku's own main,
// before a command is parsed or handed to kyku-engine: here, with no
// setup on its input, it fails in the keeper's words, not as an unknown
// command.
func TestKykuIsItsOwnKeeper(t *testing.T) {
	// kyku alone: a copy of it in a directory without kyku-engine.
	alone := filepath.Join(t.TempDir(), "kyku")
	data, err := os.ReadFile(kykuBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(alone, tfplugin.KeeperArg)
	cmd.Stdin = strings.NewReader("")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		t.Fatal("the keeper ran without a setup")
	}
	if got := stderr.String(); !strings.Contains(got, "kyku journal keeper: read the setup") {
		t.Errorf("kyku %s with no input said:\n%s\nwant the keeper's refusal of a missing setup", tfplugin.KeeperArg, got)
	}
}
