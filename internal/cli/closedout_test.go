package cli_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
)

// readerGone is a stdout whose reader goes away once it has been sent
// after: every write from then on fails with EPIPE, as a pipe's does.
type readerGone struct {
	mu    sync.Mutex
	after string
	buf   bytes.Buffer
	gone  bool
}

func (r *readerGone) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gone {
		return 0, &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
	}
	r.buf.Write(p)
	r.gone = strings.Contains(r.buf.String(), r.after)
	return len(p), nil
}

// TestClosedStdoutStopsApplyAsCtrlC: stdout's reader going away in the
// middle of an apply stops it as a first Ctrl-C does: no new change
// starts, what finished is in the saved state, the lock is released, and
// kyku says why on stderr and exits 1; the next apply finishes the job.
func TestClosedStdoutStopsApplyAsCtrlC(t *testing.T) {
	var b strings.Builder
	b.WriteString("provider: sim\nresources:\n")
	for i := range 12 {
		fmt.Fprintf(&b, "  net-%d: { type: Vpc, properties: { cidr: 10.%d.0.0/16 } }\n", i, i)
	}
	k := newKyku(t, b.String())
	k.env["KYKU_SIM_LATENCY"] = "20ms-40ms"
	stdout := &readerGone{after: "done in"}
	var stderr bytes.Buffer
	code := cli.Run(t.Context(), []string{"apply", "--auto-approve", "--parallelism", "1",
		"-c", filepath.Join(k.dir, "kyku.yaml"), "--state-dir", filepath.Join(k.dir, ".kyku")}, cli.Env{
		Stdout: stdout, Stderr: &stderr, Getenv: func(n string) string { return k.env[n] },
		Providers: provider.Registry{"sim": sim.Factory},
	})
	const notice = "kyku: stopped: standard output was closed (broken pipe); as on Ctrl-C, nothing more started, " +
		"what had started finished and was saved, and the lock was released\n"
	if code != 1 || stderr.String() != notice {
		t.Fatalf("exit %d, stderr %q; want 1 and the notice alone", code, stderr.String())
	}
	if saved := len(k.state("").Resources); saved == 0 || saved == 12 {
		t.Errorf("state holds %d of 12 resources: want what finished before the reader went away", saved)
	}
	if _, err := os.Stat(filepath.Join(k.dir, ".kyku", ".kyku.lock")); !os.IsNotExist(err) {
		t.Errorf("lock left behind: %v", err)
	}
	if code, out, errOut := k.run("", "apply", "--auto-approve"); code != 0 || len(k.state("").Resources) != 12 {
		t.Errorf("the next apply: exit %d\n%s%s", code, out, errOut)
	}
}
