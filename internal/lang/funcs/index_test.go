package funcs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// removed are in the table only to say what to write instead.
var removed = []string{"list", "map"}

// documented reads testdata/index.txt: family → functions.
func documented(t *testing.T) map[string][]string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "index.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, line := range strings.Split(string(src), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		family, names, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("index.txt: %q is not \"family: names\"", line)
		}
		out[family] = strings.Fields(names)
	}
	return out
}

// TestTableIsTheDocumentedList: every function the documentation names
// is in the table (type in the console's, plantimestamp outside it), and
// the table has nothing else but the removed list and map; each name is
// also under core::.
func TestTableIsTheDocumentedList(t *testing.T) {
	var want []string
	for _, names := range documented(t) {
		want = append(want, names...)
	}
	want = append(want, removed...)
	slices.Sort(want)

	plain, console := Table(Options{}), Table(Options{Console: true})
	var got []string
	for name := range plain {
		if !strings.HasPrefix(name, CoreNamespace) {
			got = append(got, name)
		}
		if _, ok := plain[CoreNamespace+strings.TrimPrefix(name, CoreNamespace)]; !ok {
			t.Errorf("%s has no %s alias", name, CoreNamespace)
		}
	}
	if _, ok := plain["type"]; ok {
		t.Error("type is in the table outside the console")
	}
	if _, ok := console["plantimestamp"]; ok {
		t.Error("plantimestamp is in the console's table")
	}
	if _, ok := console[CoreNamespace+"type"]; !ok {
		t.Error("the console's table has no core::type")
	}
	got = append(got, "type")
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("table vs documented functions (-documented +table):\n%s", diff)
	}
}

// TestEveryFunctionHasExamples: each documented function has a section
// of testdata/examples in the file of its family, with examples in it.
func TestEveryFunctionHasExamples(t *testing.T) {
	for family, names := range documented(t) {
		f := readExamples(t, filepath.Join("testdata", "examples", family+".txt"))
		count := map[string]int{}
		for _, ex := range f.examples {
			count[ex.fn]++
		}
		for _, name := range names {
			if count[name] == 0 {
				t.Errorf("%s: no examples of %s", family, name)
			}
		}
		sections := slices.DeleteFunc(slices.Clone(f.sections), func(s string) bool { return slices.Contains(removed, s) })
		if diff := cmp.Diff(names, sections); diff != "" {
			t.Errorf("%s: sections differ from the documented list (-documented +sections):\n%s", family, diff)
		}
	}
}
