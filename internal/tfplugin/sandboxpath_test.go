package tfplugin_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestSandboxInALongTempDir: a sandbox whose directory is so long that
// the provider's unix socket in it would be longer than a socket's path
// may be (108 bytes on Linux; a long TMPDIR) still starts the provider
// and reaches it: the jail is made in /tmp instead.
func TestSandboxInALongTempDir(t *testing.T) {
	sb := &tfplugin.Sandbox{Network: tfplugin.NetworkHost}
	tfplugintest.RequireSandbox(t, sb)
	sb.TempDir = filepath.Join(t.TempDir(), strings.Repeat("d", 80))
	if err := os.MkdirAll(sb.TempDir, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := tfplugin.Start(t.Context(), tfplugin.Config{
		Name: tfplugintest.Framework.Source(), Path: frameworkProvider(t), Sandbox: sb, StopGrace: 5 * time.Second,
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer p.Close()
	if _, err := p.Schema(t.Context()); err != nil {
		t.Fatalf("Schema of a provider sandboxed under a long TempDir: %v", err)
	}
}
