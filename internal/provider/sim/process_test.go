package sim

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const helperEnv = "KYKU_SIM_TEST_HELPER"

// TestHelperProcess is not a test: TestTwoProcesses runs the test binary
// again with it, to create names in a shared directory from another process.
// Arguments after "--": the directory and the number of names.
func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("helper process for TestTwoProcesses")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	var n int
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "helper: want -- <dir> <n>")
		os.Exit(2)
	}
	fmt.Sscan(args[1], &n)
	p, err := New(Options{Dir: args[0]})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	createNames(p, n, func(line string) { fmt.Println(line) })
	os.Exit(0)
}

// createNames creates n Vpcs from 4 goroutines, each name twice, and emits
// a "cloudName id" (or "error …") line as each call returns.
func createNames(p *Provider, n int, emit func(string)) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 2 * n {
				name := fmt.Sprintf("n%d", (i+g*n/4)%n)
				obj, err := p.Create(context.Background(), vpc(name))
				line := "pfx-" + name + " " + obj.ID
				if err != nil {
					line = "error " + err.Error()
				}
				mu.Lock()
				emit(line)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// runHelpers runs count helper processes at once on dir, creating n names
// each; with kill > 0 each is killed with SIGKILL once it reported that
// many creates, so the kill lands in the middle of its work.
func runHelpers(t *testing.T, dir string, count, n, kill int) [][]byte {
	t.Helper()
	var wg sync.WaitGroup
	outs := make([][]byte, count)
	errs := make([]error, count)
	for i := range outs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "--", dir, fmt.Sprint(n))
		cmd.Env = append(os.Environ(), helperEnv+"=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			var out bytes.Buffer
			sc := bufio.NewScanner(stdout)
			for lines := 0; sc.Scan(); lines++ {
				if kill > 0 && lines == kill {
					cmd.Process.Kill()
					break
				}
				out.Write(sc.Bytes())
				out.WriteByte('\n')
			}
			io.Copy(io.Discard, stdout)
			err := cmd.Wait()
			if err != nil && kill == 0 {
				errs[i] = fmt.Errorf("helper %d: %w: %s", i, err, stderr.String())
			}
			outs[i] = out.Bytes()
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return outs
}

func TestTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	const n = 40
	checkHelpers(t, dir, n, runHelpers(t, dir, 2, n, 0))
}

// TestKilledProcesses kills processes creating objects at arbitrary
// points (SIGKILL), then lets two finish: exactly one object per name.
func TestKilledProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	const n = 60
	for _, after := range []int{3, 17, 40} {
		runHelpers(t, dir, 2, n, after)
		files, _ := filepath.Glob(filepath.Join(dir, "Vpc", "*.json"))
		t.Logf("killed after %d creates: %d of %d objects exist", after, len(files), n)
	}
	checkHelpers(t, dir, n, runHelpers(t, dir, 2, n, 0))
}

// checkHelpers asserts that the helpers agree on one ID per name, that
// IDs are distinct, and that the cloud holds exactly one object per name.
func checkHelpers(t *testing.T, dir string, n int, outs [][]byte) {
	t.Helper()
	idOf := map[string]string{} // cloud name → ID every process must agree on
	for i, out := range outs {
		sc := bufio.NewScanner(bytes.NewReader(out))
		lines := 0
		for sc.Scan() {
			name, id, _ := strings.Cut(sc.Text(), " ")
			if name == "error" {
				t.Fatalf("helper %d: %s", i, id)
			}
			lines++
			if prev, ok := idOf[name]; ok && prev != id {
				t.Errorf("%s got IDs %s and %s; want one object", name, prev, id)
			}
			idOf[name] = id
		}
		if lines != 8*n {
			t.Errorf("helper %d printed %d results, want %d", i, lines, 8*n)
		}
	}
	ids := map[string]bool{}
	for name, id := range idOf {
		if ids[id] {
			t.Errorf("ID %s handed out twice", id)
		}
		ids[id] = true
		if c := countObjects(t, dir, "Vpc", name); c != 1 {
			t.Errorf("%s: %d object files, want exactly 1", name, c)
		}
	}
	if len(idOf) != n {
		t.Errorf("%d names created, want %d", len(idOf), n)
	}
	p := newSim(t, Options{Dir: dir})
	for name, id := range idOf {
		obj, err := p.Lookup(t.Context(), "Vpc", name)
		if err != nil || obj.ID != id {
			t.Errorf("Lookup %s = %q, %v; want %s", name, obj.ID, err, id)
		}
	}
}
