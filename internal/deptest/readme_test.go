package deptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kyku/action/internal/buildtest"
)

// goBlock is one ```go block of a Markdown file.
type goBlock struct {
	line     int // of the opening fence
	fragment bool
	src      string
}

// goBlocks returns the ```go blocks of a Markdown file. A block whose
// fence says "```go fragment" is marked as a fragment.
func goBlocks(t *testing.T, path string) []goBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []goBlock
	var cur *goBlock
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch fence := strings.TrimSpace(line); {
		case cur == nil && (fence == "```go" || fence == "```go fragment"):
			cur = &goBlock{line: n, fragment: fence == "```go fragment"}
		case cur != nil && fence == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.src += line + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s:%d: a ```go block is never closed", path, cur.line)
	}
	return blocks
}

var packageClause = regexp.MustCompile(`(?m)^package (\w+)`)

// TestREADMEGoSnippetsCompile: every ```go block of the README (and of
// docs/) is a complete Go file that compiles against this checkout, as a
// reader would paste it; a block that is not one must say so ("```go
// fragment"). Each is compiled as a package of the module (through an
// overlay: nothing is written to the checkout), its package clause renamed
// so that a program is compiled without being linked.
func TestREADMEGoSnippetsCompile(t *testing.T) {
	root := repoRoot(t)
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	tmp := t.TempDir()
	overlay := map[string]string{}
	var pkgs []string
	where := map[string]string{}
	compiled := 0
	for _, doc := range append([]string{filepath.Join(root, "README.md")}, docs...) {
		rel, _ := filepath.Rel(root, doc)
		for _, b := range goBlocks(t, doc) {
			if b.fragment {
				continue
			}
			if !packageClause.MatchString(b.src) {
				t.Errorf("%s:%d: a ```go block without a package clause: make it a complete program, or mark it ```go fragment", rel, b.line)
				continue
			}
			name := fmt.Sprintf("snippet%d", len(pkgs))
			file := filepath.Join(tmp, fmt.Sprintf("%s-line-%d.go", strings.ReplaceAll(rel, string(filepath.Separator), "-"), b.line))
			if err := os.WriteFile(file, []byte(packageClause.ReplaceAllString(b.src, "package "+name)), 0o644); err != nil {
				t.Fatal(err)
			}
			pkg := "./internal/deptest/testdata/readme/" + name
			overlay[filepath.Join(root, "internal", "deptest", "testdata", "readme", name, "main.go")] = file
			pkgs = append(pkgs, pkg)
			where[pkg] = fmt.Sprintf("%s:%d", rel, b.line)
			compiled++
		}
	}
	if compiled == 0 {
		t.Fatal("no Go snippet found in README.md or docs/: the test reads the wrong files")
	}
	data, err := json.Marshal(map[string]any{"Replace": overlay})
	if err != nil {
		t.Fatal(err)
	}
	overlayFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlayFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, pkg := range pkgs {
		build := buildtest.Command("-overlay", overlayFile, pkg)
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			t.Errorf("%s: the Go snippet does not compile (%v):\n%s", where[pkg], err, out)
		}
	}
}
