package doctest

import (
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// inlineLinkRE is [text](target "title") and ![alt](target).
	inlineLinkRE  = regexp.MustCompile(`!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	codeSpanAnyRE = regexp.MustCompile("(`+)[^`]*?(`+)")
)

// link is one link of a page's prose.
type link struct {
	line   int
	target string
}

// links are the inline links of p's prose, code spans left out.
func (p page) links() []link {
	var out []link
	for i, line := range p.prose {
		line = codeSpanAnyRE.ReplaceAllString(line, "")
		for _, m := range inlineLinkRE.FindAllStringSubmatch(line, -1) {
			out = append(out, link{line: i + 1, target: m[2]})
		}
	}
	return out
}

// checkLink says what is wrong with a link of the page at from, or "".
func checkLink(from, target string, exists func(rel string) (isDir bool, ok bool), anchorsOf func(rel string) map[string]bool) string {
	if target == "" {
		return "an empty link"
	}
	if u, err := url.Parse(target); err == nil && u.Scheme != "" {
		if u.Scheme != "https" {
			return fmt.Sprintf("%s: an external link must be https", target)
		}
		if u.Host == "" || strings.ContainsAny(u.Host, " _") || !strings.Contains(u.Host, ".") {
			return fmt.Sprintf("%s: not a well-formed https URL", target)
		}
		return ""
	} else if err != nil {
		return fmt.Sprintf("%s: %v", target, err)
	}
	file, frag, _ := strings.Cut(target, "#")
	rel := from
	if file != "" {
		if strings.HasPrefix(file, "/") {
			return fmt.Sprintf("%s: an absolute path; write it relative to %s", target, from)
		}
		unesc, err := url.PathUnescape(file)
		if err != nil {
			return fmt.Sprintf("%s: %v", target, err)
		}
		rel = path.Clean(path.Join(path.Dir(from), unesc))
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return fmt.Sprintf("%s: outside the repository", target)
		}
		isDir, ok := exists(rel)
		if !ok {
			return fmt.Sprintf("%s: %s does not exist", target, rel)
		}
		if isDir && frag != "" {
			return fmt.Sprintf("%s: an anchor into a directory", target)
		}
	}
	if frag == "" {
		return ""
	}
	if !strings.HasSuffix(rel, ".md") {
		return fmt.Sprintf("%s: an anchor into %s, which is not Markdown", target, rel)
	}
	if !anchorsOf(rel)[frag] {
		return fmt.Sprintf("%s: %s has no heading with the anchor #%s", target, rel, frag)
	}
	return ""
}

// TestDocLinksResolve: every relative link of README.md, docs/**/*.md and
// examples/**/*.md names a file or directory of the repository, every
// #anchor a heading of its page (GitHub's slug), and every external link
// is a well-formed https URL.
func TestDocLinksResolve(t *testing.T) {
	root := repoRoot(t)
	pages := map[string]page{}
	anchorsOf := func(rel string) map[string]bool {
		p, ok := pages[rel]
		if !ok {
			p = readPage(t, root, rel)
			pages[rel] = p
		}
		return p.anchors()
	}
	exists := func(rel string) (bool, bool) {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return false, false
		}
		return fi.IsDir(), true
	}
	checked := 0
	for _, rel := range docPages(t, root) {
		p := readPage(t, root, rel)
		pages[rel] = p
		for _, l := range p.links() {
			checked++
			if msg := checkLink(rel, l.target, exists, anchorsOf); msg != "" {
				t.Errorf("%s:%d: %s", rel, l.line, msg)
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d links found: the test reads the wrong files", checked)
	}
}

// TestCheckLink: the checker itself, on links that must pass and fail.
func TestCheckLink(t *testing.T) {
	files := map[string]bool{"README.md": false, "docs/a.md": false, "docs": true, "examples/null": true, "action.yml": false}
	exists := func(rel string) (bool, bool) { d, ok := files[rel]; return d, ok }
	anchors := map[string]map[string]bool{
		"README.md": parsePage("README.md", "# Kyku\n## Quick start (Go only)\n```sh\n# not a heading\n```\n## The `sim` provider\n## Replicas: 1, 3 or 30\n## Quick start (Go only)\n").anchors(),
		"docs/a.md": parsePage("docs/a.md", "# A\n### Tenancy and the operator's policy (`KYKU_BOT_POLICY`)\n").anchors(),
	}
	anchorsOf := func(rel string) map[string]bool { return anchors[rel] }
	for _, tc := range []struct {
		from, target string
		ok           bool
	}{
		{"README.md", "docs/a.md", true},
		{"README.md", "docs/a.md#tenancy-and-the-operators-policy-kyku_bot_policy", true},
		{"README.md", "#quick-start-go-only", true},
		{"README.md", "#quick-start-go-only-1", true},
		{"README.md", "#the-sim-provider", true},
		{"README.md", "#replicas-1-3-or-30", true},
		{"README.md", "#not-a-heading", false},
		{"README.md", "#quick-start-go-only-2", false},
		{"docs/a.md", "../README.md#kyku", true},
		{"docs/a.md", "../examples/null", true},
		{"docs/a.md", "../examples/null#x", false},
		{"docs/a.md", "../action.yml#inputs", false},
		{"docs/a.md", "b.md", false},
		{"docs/a.md", "../../etc/passwd", false},
		{"README.md", "https://github.com/kyku/action", true},
		{"README.md", "http://github.com/kyku/action", false},
		{"README.md", "https:/github.com", false},
		{"README.md", "https://localhost", false},
		{"README.md", "", false},
	} {
		t.Run(tc.from+"→"+tc.target, func(t *testing.T) {
			msg := checkLink(tc.from, tc.target, exists, anchorsOf)
			if (msg == "") != tc.ok {
				t.Errorf("checkLink(%q, %q) = %q; want ok=%v", tc.from, tc.target, msg, tc.ok)
			}
		})
	}
}

// TestDocsIndexListsEveryPage: docs/README.md links every page of docs/
// (and every page other changes are adding), so that none is found only
// by chance.
func TestDocsIndexListsEveryPage(t *testing.T) {
	root := repoRoot(t)
	index := readPage(t, root, "docs/README.md")
	linked := map[string]bool{}
	for _, l := range index.links() {
		file, _, _ := strings.Cut(l.target, "#")
		linked[path.Clean(path.Join("docs", file))] = true
	}
	want := map[string]bool{}
	for _, rel := range docPages(t, root) {
		if strings.HasPrefix(rel, "docs/") && rel != "docs/README.md" {
			want[rel] = true
		}
	}
	for rel := range want {
		if !linked[rel] {
			t.Errorf("docs/README.md does not link %s", rel)
		}
	}
}
