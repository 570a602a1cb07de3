package bot_test

import (
	"regexp"
	"slices"
	"strings"

	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/golden"
)

// conversation is everything the App wrote on pull request number, in
// order: its comments, and its check runs (those on heads, when given)
// with their fields, as GitHub shows them. What changes from run to run
// (the fake's address, a dispatch's random ID, times) is replaced by a
// stable name.
func (h *harness) conversation(number int, heads ...string) string {
	var doc strings.Builder
	// Jobs of several environments write side by side: in the order of
	// what each comment is for (its marker), then as written.
	comments := h.botComments(number)
	slices.SortStableFunc(comments, func(a, b githubtest.Comment) int { return strings.Compare(markerOf(a.Body), markerOf(b.Body)) })
	for _, c := range comments {
		doc.WriteString("## comment\n\n" + c.Body)
		if !strings.HasSuffix(c.Body, "\n") {
			doc.WriteString("\n")
		}
		doc.WriteString("\n")
	}
	runs := h.gh.CheckRuns(repoName)
	slices.SortStableFunc(runs, func(a, b githubtest.CheckRun) int { return strings.Compare(a.Name, b.Name) })
	for _, r := range runs {
		if len(heads) > 0 && !slices.Contains(heads, r.HeadSHA) {
			continue
		}
		doc.WriteString("## check run on " + r.HeadSHA[:7] + "\n\n" + golden.CheckRun(r.Name, r.Status, r.Conclusion, r.Title, r.Summary, r.Text))
		if r.DetailsURL != "" {
			doc.WriteString("\ndetails: " + r.DetailsURL + "\n")
		}
		doc.WriteString("\n")
	}
	out := strings.ReplaceAll(doc.String(), h.gh.URL, "https://github.example")
	for _, v := range variable {
		out = v.re.ReplaceAllString(out, v.as)
	}
	return out
}

// markerOf is the hidden marker a comment of Kyku's starts with ("" for
// none).
func markerOf(body string) string {
	if line, _, _ := strings.Cut(body, "\n"); strings.HasPrefix(line, "<!-- kyku:") {
		return line
	}
	return ""
}

// variable is what differs between two runs of one test, and how a
// conversation names it.
var variable = []struct {
	re *regexp.Regexp
	as string
}{
	{regexp.MustCompile(`kyku-[0-9a-f]{32}`), "kyku-<dispatch-id>"},
	// The sim numbers what it creates in the order it is asked, and a
	// plan creates side by side.
	{regexp.MustCompile(`\b1000\d{4}\b`), "<sim-id>"},
	// A plan's digest covers the state's lineage, which is random.
	{regexp.MustCompile(`\b[0-9a-f]{64}\b`), "<sha256>"},
	{regexp.MustCompile(`\d{8}T\d{6}(\.\d+)?Z`), "<time>"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC`), "<time>"},
	{regexp.MustCompile(`\*\* in [0-9.]+[µm]?s\b`), "** in <duration>"},
}

// wantConversation compares the conversation on number (check runs on
// heads, when given) with the golden file testdata/conversations/name.md
// (go test -update rewrites it).
func (h *harness) wantConversation(number int, name string, heads ...string) {
	h.t.Helper()
	name = strings.Trim(unsafeName.ReplaceAllString(strings.ToLower(name), "-"), "-")
	golden.Check(h.t, "conversations/"+name+".md", h.conversation(number, heads...))
}

// unsafeName is what a golden file's name is not made of.
var unsafeName = regexp.MustCompile(`[^a-z0-9]+`)
