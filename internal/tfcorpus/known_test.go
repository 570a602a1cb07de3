package tfcorpus_test

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfcorpus"
)

// updateKnown rewrites knownDifferences (knownlist_test.go) with the
// differences found now, keeping each entry's why: run it after a change
// that removes differences, and read the diff of the file.
var updateKnown = flag.Bool("update-known", false, "rewrite knownlist_test.go with the differences found now")

// known is a corpus entry Kyku does not match yet: why, and every
// difference the comparison finds in it, in its order.
type known struct {
	why   string
	diffs []string
}

// checkKnown fails t with every difference entryDiffs finds in e, unless
// e is in knownDifferences, says why, and its differences are exactly the
// listed ones; a listed entry that matches fails too, so that the list
// only shrinks. It returns the differences.
func checkKnown(t *testing.T, e tfcorpus.Entry, mirror string, planner tfcorpus.Planner) []string {
	t.Helper()
	diffs, err := entryDiffs(t.Context(), e, t.TempDir(), mirror, planner)
	if err != nil {
		t.Fatal(err)
	}
	k, listed := knownDifferences[e.Name]
	switch {
	case !listed:
		for _, d := range diffs {
			t.Error(d)
		}
	case len(diffs) == 0:
		t.Errorf("%s matches OpenTofu now: remove it from knownDifferences (-update-known)", e.Name)
	case k.why == "":
		t.Errorf("knownDifferences[%q] does not say why Kyku differs", e.Name)
	default:
		if diff := cmp.Diff(k.diffs, diffs); diff != "" {
			t.Errorf("differences other than knownDifferences lists (-listed +now; -update-known rewrites the list):\n%s", diff)
		}
	}
	return diffs
}

// writeKnown rewrites knownlist_test.go: the entries that ran with the
// differences they have now (those that match left out; one new to the
// list with no why, which the test refuses until one is written), the
// others as they were.
func writeKnown(ran map[string][]string) error {
	list := maps.Clone(knownDifferences)
	for name, diffs := range ran {
		if len(diffs) == 0 {
			delete(list, name)
			continue
		}
		list[name] = known{why: list[name].why, diffs: diffs}
	}
	var b bytes.Buffer
	b.WriteString(knownHeader)
	b.WriteString("var knownDifferences = map[string]known{\n")
	for _, name := range slices.Sorted(maps.Keys(list)) {
		k := list[name]
		fmt.Fprintf(&b, "%q: {\nwhy: %q,\ndiffs: []string{\n", name, k.why)
		for _, d := range k.diffs {
			fmt.Fprintf(&b, "%q,\n", d)
		}
		b.WriteString("},\n},\n")
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return fmt.Errorf("format knownlist_test.go: %w", err)
	}
	return os.WriteFile("knownlist_test.go", src, 0o644)
}

const knownHeader = `package tfcorpus_test

// knownDifferences are the corpus entries Kyku does not plan as OpenTofu
// does yet: by entry, why, and every difference the comparison finds,
// exactly (checkKnown). The test fails on any other difference, and on a
// listed entry that matches, so the list only shrinks.
//
// Rewritten by: go test ./internal/tfcorpus -run TestCorpusMatchesOpenTofu
// -update-known (with KYKU_TFCORPUS_MIRROR set, or the entries needing the
// hashicorp providers are kept as they are); each why is written by hand.
`
