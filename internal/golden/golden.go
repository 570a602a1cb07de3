// Package golden is for tests: it compares a text a test rendered with a
// golden file under testdata/, and rewrites the file instead when the
// test runs with -update (go test ./internal/review -update). A package
// whose tests use it leaves the -update flag to it.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/github"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// Check compares got with testdata/name, or writes it there with -update.
func Check(t testing.TB, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", filepath.FromSlash(name))
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with -update to write it): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; run with -update to accept):\n%s", path, diff)
	}
}

// Sections is texts as one golden document: each under a "## name"
// heading, in the order given, so that a reader sees every variant of a
// surface in one file.
type Sections struct {
	names []string
	texts map[string]string
}

// Add adds the text of one section; a name given twice fails the test.
func (s *Sections) Add(t testing.TB, name, text string) {
	t.Helper()
	if s.texts == nil {
		s.texts = map[string]string{}
	}
	if _, ok := s.texts[name]; ok {
		t.Fatalf("golden section %q given twice", name)
	}
	s.names = append(s.names, name)
	s.texts[name] = text
}

// String is the document.
func (s *Sections) String() string {
	var out []byte
	for _, n := range s.names {
		out = append(out, "## "+n+"\n\n"...)
		out = append(out, s.texts[n]...)
		if len(s.texts[n]) == 0 || s.texts[n][len(s.texts[n])-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, '\n')
	}
	return string(out)
}

// CheckRunOf is CheckRun of c.
func CheckRunOf(c github.CheckRun) string {
	return CheckRun(c.Name, c.Status.String(), c.Conclusion.String(), c.Title, c.Summary, c.Text)
}

// CheckRun is a check run as a golden section shows it: its fields, then
// its summary (and text) as GitHub renders them.
func CheckRun(name, status, conclusion, title, summary, text string) string {
	out := "name: " + name + "\nstatus: " + status + "\n"
	if conclusion != "" {
		out += "conclusion: " + conclusion + "\n"
	}
	if title != "" {
		out += "title: " + title + "\n"
	}
	if summary != "" {
		out += "\n" + summary
	}
	if text != "" {
		out += "\n---- text ----\n" + text
	}
	return out
}
