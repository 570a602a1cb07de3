package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestClosedStdoutStopsCleanly: kyku plan | head, with the reader gone
// before kyku writes (a real pipe, its read end closed): kyku does not
// die of SIGPIPE but stops as on Ctrl-C: it says so on stderr and exits
// 1, no Terraform provider process outlives it, the state lock is
// released and an apply changes nothing (its plan could not be shown).
func TestClosedStdoutStopsCleanly(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("process test")
	}
	p, mirror := pluginProject(t, `  a: { type: fwtest_item, properties: { name: a, value: v1 } }
  b: { type: fwtest_item, properties: { name: b, value: v2 } }
`)
	if code, out := p.run("init"); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{{"plan"}, {"apply", "--auto-approve"}, {"plan", "--json"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			r.Close() // the reader went away: every write to w fails
			var stderr syncBuffer
			c := p.cmd(ctx, args...)
			c.Stdout, c.Stderr = w, &stderr
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			_ = c.Wait()
			if code := c.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), "kyku: stopped: standard output was closed (broken pipe)") {
				t.Errorf("exit %d (%v), want 1 with the notice\n%s", code, c.ProcessState, stderr.String())
			}
			noProviderLeft(t, mirror)
			if _, err := os.Stat(filepath.Join(p.dir, ".kyku-state", ".kyku.lock")); !os.IsNotExist(err) {
				t.Errorf("lock left behind: %v", err)
			}
			if made, _ := filepath.Glob(filepath.Join(p.dir, "items", "*.json")); len(made) != 0 {
				t.Errorf("the cloud holds %v: applied without showing the plan", made)
			}
		})
	}
}
