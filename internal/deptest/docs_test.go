package deptest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSecurityDocCitesOnlyTestsThatExist: docs/security.md names, for each
// attack, the test that holds it. A claim whose test was renamed or removed
// is a claim no test holds, so every Test…/Fuzz… name the page cites must
// be a test function somewhere in the repository.
func TestSecurityDocCitesOnlyTestsThatExist(t *testing.T) {
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "security.md"))
	if err != nil {
		t.Fatalf("read docs/security.md: %v", err)
	}
	cited := regexp.MustCompile("`((?:Test|Fuzz)[A-Z][A-Za-z0-9_]*)`").FindAllStringSubmatch(string(doc), -1)
	if len(cited) == 0 {
		t.Fatal("docs/security.md cites no test")
	}
	funcs := map[string]bool{}
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)[A-Za-z0-9_]+)\(`)
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
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
	for _, m := range cited {
		if !funcs[m[1]] {
			t.Errorf("docs/security.md cites %s, which is no test in the repository", m[1])
		}
	}
}
