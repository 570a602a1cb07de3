package doctest

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// block is one fenced code block of a Markdown file.
type block struct {
	line  int    // of the opening fence
	info  string // what follows the fence: "sh", "yaml", "go fragment"
	note  string // the HTML comment on the line before the fence, if any
	lines []string
}

// page is a Markdown file split into its prose lines (code blocks blanked)
// and its fenced code blocks.
type page struct {
	path   string // relative to the repository root, slash-separated
	prose  []string
	blocks []block
}

var fenceRE = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})\\s*(.*)$")

func readPage(t *testing.T, root, rel string) page {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return parsePage(rel, string(src))
}

// parsePage splits src into prose and fenced blocks; a fence closes with
// the same character, at least as long, as CommonMark says.
func parsePage(rel, src string) page {
	p := page{path: rel}
	lines := strings.Split(src, "\n")
	var cur *block
	var fence string
	for i, line := range lines {
		m := fenceRE.FindStringSubmatch(line)
		switch {
		case cur == nil && m != nil:
			cur = &block{line: i + 1, info: strings.TrimSpace(m[2])}
			fence = m[1]
			if i > 0 {
				if prev := strings.TrimSpace(lines[i-1]); strings.HasPrefix(prev, "<!--") && strings.HasSuffix(prev, "-->") {
					cur.note = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(prev, "<!--"), "-->"))
				}
			}
			p.prose = append(p.prose, "")
		case cur != nil && m != nil && m[2] == "" && m[1][0] == fence[0] && len(m[1]) >= len(fence):
			p.blocks = append(p.blocks, *cur)
			cur = nil
			p.prose = append(p.prose, "")
		case cur != nil:
			cur.lines = append(cur.lines, line)
			p.prose = append(p.prose, "")
		default:
			p.prose = append(p.prose, line)
		}
	}
	return p
}

var (
	headingRE  = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	codeSpanRE = regexp.MustCompile("(`+)(.+?)(`+)")
	linkTextRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// anchors are the ids GitHub gives the page's headings: the heading's text
// as rendered, lower-cased, every character but letters, digits, '-', '_'
// and spaces dropped, spaces made '-'; a repeated slug gets -1, -2, ….
func (p page) anchors() map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, line := range p.prose {
		m := headingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := slug(m[2])
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

func slug(heading string) string {
	text := linkTextRE.ReplaceAllString(heading, "$1")
	text = codeSpanRE.ReplaceAllString(text, "$2")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

// repoRoot is the module's root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

// docPages are README.md and every Markdown file under docs/ and
// examples/ (whose READMEs link into docs/).
func docPages(t *testing.T, root string) []string {
	t.Helper()
	pages := []string{"README.md"}
	for _, dir := range []string{"docs", "examples"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && strings.HasPrefix(d.Name(), ".kyku") && d.Name() != dir {
				return filepath.SkipDir // local state of someone's run
			}
			if !d.IsDir() && strings.HasSuffix(path, ".md") {
				rel, _ := filepath.Rel(root, path)
				pages = append(pages, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return pages
}
