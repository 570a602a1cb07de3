package tfplugintest

import (
	"bufio"
	"os"
	"os/exec"
	"testing"
	"time"
)

// lockerDir, when set, makes this test binary a second process taking
// the build lock of that directory (TestBuildLockIsTakenInTurns).
const lockerDir = "KYKU_TFPLUGINTEST_LOCKER_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(lockerDir); dir != "" {
		os.Stdout.WriteString("waiting\n")
		unlock, err := lockBuilds(dir)
		if err != nil {
			os.Stdout.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("locked\n")
		unlock()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestBuildLockIsTakenInTurns: while one process holds the build lock,
// another waits for it (so that go test's side-by-side test processes
// build the providers once) and takes it once released.
func TestBuildLockIsTakenInTurns(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lockBuilds(dir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), lockerDir+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	if got := <-lines; got != "waiting" {
		t.Fatalf("second process: %q, want waiting", got)
	}
	select {
	case got := <-lines:
		t.Fatalf("second process took the lock while this one held it: %q", got)
	case <-time.After(300 * time.Millisecond):
	}
	unlock()
	select {
	case got := <-lines:
		if got != "locked" {
			t.Fatalf("second process: %q, want locked", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("second process never took the released lock")
	}
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
}
