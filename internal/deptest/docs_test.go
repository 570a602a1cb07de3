package deptest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSecurityDocCitesOnlyTestsThatExist: docs/security.md names, for each
// attack, the test that holds it, and docs/architecture.md, for each rule,
// where it lives and the test that tries to get around it. A claim whose
// test was renamed or removed is a claim no test holds, so every
// Test…/Fuzz… name the pages cite (those two, the README and every other
// page of docs/) must be a test function somewhere in the repository, and
// every path architecture.md names must exist.
func TestSecurityDocCitesOnlyTestsThatExist(t *testing.T) {
	root := repoRoot(t)
	funcs := testFuncs(t, root)
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	pages = append(pages, filepath.Join(root, "README.md"))
	mustCite := map[string]bool{"docs/security.md": true, "docs/architecture.md": true}
	for _, path := range pages {
		page, _ := filepath.Rel(root, path)
		page = filepath.ToSlash(page)
		doc, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("read %s: %v", page, err)
		}
		cited := regexp.MustCompile("`((?:Test|Fuzz)[A-Z][A-Za-z0-9_]*)`").FindAllStringSubmatch(string(doc), -1)
		if len(cited) == 0 && mustCite[page] {
			t.Errorf("%s cites no test", page)
		}
		delete(mustCite, page)
		for _, m := range cited {
			if !funcs[m[1]] {
				t.Errorf("%s cites %s, which is no test in the repository", page, m[1])
			}
		}
	}
	for page := range mustCite {
		t.Errorf("%s is missing", page)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatalf("read docs/architecture.md: %v", err)
	}
	paths := regexp.MustCompile("`((?:internal|cmd|docs|testdata|examples|kyku|\\.ci)/[A-Za-z0-9_./-]*[A-Za-z0-9_])/?`").FindAllStringSubmatch(string(doc), -1)
	if len(paths) == 0 {
		t.Error("docs/architecture.md names no file or package")
	}
	for _, m := range paths {
		if strings.ContainsAny(m[1], "<*") {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, m[1])); err != nil {
			t.Errorf("docs/architecture.md names %s, which is not in the repository", m[1])
		}
	}
}

// testFuncs are the names of the Test… and Fuzz… functions in the
// repository's test files.
func testFuncs(t *testing.T, root string) map[string]bool {
	t.Helper()
	funcs := map[string]bool{}
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)[A-Za-z0-9_]+)\(`)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" && path != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(src), -1) {
			funcs[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk the repository: %v", err)
	}
	return funcs
}
