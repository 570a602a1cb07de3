package doctest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runPages are the pages whose shell commands a reader runs as shown.
var runPages = []string{"docs/getting-started.md", "docs/action.md"}

// shellInfo are the fences that hold commands.
var shellInfo = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true}

// script is one shell block of a page, to run or to skip.
type script struct {
	page, name string
	line       int
	lines      []string
	skip       string // the reason a "<!-- not run: … -->" note gives
}

// scripts are the shell blocks of p. A block that is not run must say why
// in a "<!-- not run: reason -->" comment on the line before its fence;
// any other comment there, or a bare note, is an error.
func scripts(t *testing.T, p page) []script {
	t.Helper()
	var out []script
	for _, b := range p.blocks {
		lang, _, _ := strings.Cut(b.info, " ")
		if !shellInfo[lang] {
			continue
		}
		s := script{page: p.path, line: b.line, lines: b.lines, name: p.path + ":" + strconv.Itoa(b.line)}
		if b.note != "" {
			reason, ok := strings.CutPrefix(b.note, "not run:")
			if !ok || strings.TrimSpace(reason) == "" {
				t.Errorf("%s:%d: the comment before a shell block must be \"<!-- not run: reason -->\", not %q", p.path, b.line, b.note)
			}
			s.skip = strings.TrimSpace(reason)
		} else if lang == "console" {
			t.Errorf("%s:%d: a console block on a page whose commands are run: write it as ```sh, or say why not with <!-- not run: reason -->", p.path, b.line)
		}
		out = append(out, s)
	}
	return out
}

// asRun turns a block into the script the test runs: `go run ./cmd/kyku`
// is the built kyku, and the first failing command stops it.
func asRun(lines []string) string {
	var b strings.Builder
	b.WriteString("set -eu\n")
	for _, l := range lines {
		b.WriteString(strings.ReplaceAll(l, "go run ./cmd/kyku", "kyku"))
		b.WriteString("\n")
	}
	return b.String()
}

// copyDir copies the regular files under src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".kyku-") {
				return filepath.SkipDir // a local state left by someone's own run
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDocCommandsRun runs, in order, every shell block of the
// getting-started and Action pages (but those marked not to be run) with
// the CLI built from this checkout on PATH, in a copy of the repository's
// examples/ with a home of its own and no KYKU_* variable of the caller's:
// the sim provider and local state, no network. Every block must exit 0.
func TestDocCommandsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the CLI")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	root := repoRoot(t)
	bin := filepath.Dir(kykuBinary(t))
	for _, rel := range runPages {
		p := readPage(t, root, rel)
		all := scripts(t, p)
		work := t.TempDir()
		copyDir(t, filepath.Join(root, "examples"), filepath.Join(work, "examples"))
		home := t.TempDir()
		env := []string{"PATH=" + bin + string(os.PathListSeparator) + "/usr/bin:/bin", "HOME=" + home, "TMPDIR=" + os.TempDir(), "NO_COLOR=1"}
		ran := 0
		for _, s := range all {
			if s.skip != "" {
				continue
			}
			ran++
			ok := t.Run(s.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, sh, "-c", asRun(s.lines))
				cmd.Dir = work
				cmd.Env = env
				cmd.Stdin = bytes.NewReader(nil)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Errorf("%s: the commands shown fail (%v):\n%s\n---\n%s", s.name, err, strings.Join(s.lines, "\n"), out)
				}
			})
			if !ok {
				break // later blocks build on this one
			}
		}
		if ran == 0 {
			t.Errorf("%s: no shell block is run: the test reads the wrong page", rel)
		}
	}
}
