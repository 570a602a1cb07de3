package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/statemgr"
)

// TestLoadReadsTheStateAheadForTheWorkspaceItOpens: a command that loads a
// Terraform configuration and then opens its workspace (plan, apply,
// destroy, refresh) opens the backend as soon as the files are parsed and
// reads the state while the configuration expands; the workspace it opens
// then is on that backend, once. A workspace of another operation opens
// its own, and a configuration that does not expand keeps none (its
// error is the configuration's).
func TestLoadReadsTheStateAheadForTheWorkspaceItOpens(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("resource \"terraform_data\" \"a\" {\n  input = \"x\"\n}\n")
	sims := provider.Registry{"sim": sim.Factory}
	var out, errOut bytes.Buffer
	if code := Run(t.Context(), []string{"apply", "--auto-approve", "-c", dir}, Env{Stdout: &out, Stderr: &errOut, Providers: sims}); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out.String(), errOut.String())
	}

	load := func(op string) (*common, *Env, *config.Config, error) {
		env := &Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }, Now: time.Now, Providers: sims}
		env.notices, env.secrets, env.ctx, env.creds = &notices{stderr: io.Discard}, &progress.SecretBook{}, t.Context(), &credsCache{}
		c := &common{}
		fs := newFlags("plan", env)
		c.register(fs, env)
		if err := fs.parseNone([]string{"-c", dir}); err != nil {
			t.Fatal(err)
		}
		c.readAhead = op
		cfg, err := c.load(env)
		return c, env, cfg, err
	}

	c, env, cfg, err := load("plan")
	if err != nil {
		t.Fatal(err)
	}
	if c.early == nil || c.early.s.TerraformBackend == nil {
		t.Fatal("plan's load opened no backend to read the state ahead")
	}
	early := c.early.s.TerraformBackend
	ws, err := c.open(t.Context(), env, cfg, "plan", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if ws.Backend != statemgr.Backend(early) {
		t.Errorf("the workspace opened another backend than the one its state was read ahead in")
	}
	if c.early != nil {
		t.Errorf("the backend opened early is kept for another open")
	}
	if st, err := ws.Engine.Known(t.Context()); err != nil || st == nil {
		t.Errorf("the state read through the backend opened early: %v, %v", st, err)
	}

	c, env, cfg, err = load("apply")
	if err != nil {
		t.Fatal(err)
	}
	if c.early == nil {
		t.Fatal("apply's load opened no backend to read the state ahead")
	}
	early = c.early.s.TerraformBackend
	other, err := c.open(t.Context(), env, cfg, "plan", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if other.Backend == statemgr.Backend(early) || c.early != nil {
		t.Errorf("a plan's workspace took a backend opened early for an apply")
	}

	write("resource \"terraform_data\" \"a\" {\n  count = \"many\"\n}\n")
	c, _, _, err = load("plan")
	if err == nil || !strings.Contains(err.Error(), "count") || c.early != nil {
		t.Errorf("a configuration that does not expand: err %v, a backend kept %v; want its error and none", err, c.early != nil)
	}
}
