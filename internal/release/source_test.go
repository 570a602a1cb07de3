package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFromSourceLine: docs/install.md's from-source line works on a fresh
// clone (of this repository's HEAD, for the URL it names): it builds kyku,
// which prints its version, and leaves the clone clean (the binary is
// git-ignored). The repository has a directory named kyku (the Go API),
// so `go build -o kyku` would write kyku/kyku instead.
func TestFromSourceLine(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "docs/install.md"))
	if err != nil {
		t.Fatal(err)
	}
	const url = "https://github.com/kyku/action"
	var line string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "git clone "+url+" ") && strings.Contains(l, "go build") {
			line = l
		}
	}
	if line == "" {
		t.Fatal("docs/install.md has no line `git clone " + url + " … go build …`")
	}
	repo, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cmd := exec.Command("sh", "-c", strings.Replace(line, url, repo, 1))
	cmd.Dir = tmp
	// As .ci/run's vet builds: the packages are then in the build cache
	// (the line itself is unchanged).
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-trimpath")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || !strings.HasPrefix(string(out), "kyku ") {
		t.Fatalf("%s: %v\n%s%s", line, err, out, stderr.String())
	}
	clone := filepath.Join(tmp, strings.Fields(line)[3])
	status, err := exec.Command("git", "-C", clone, "status", "--porcelain").CombinedOutput()
	if err != nil || len(status) != 0 {
		t.Errorf("the clone is not clean after the build: %v\n%s", err, status)
	}
}
