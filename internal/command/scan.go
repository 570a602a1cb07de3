package command

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// scanner walks a comment body line by line and tells which lines a
// reader sees as plain text of their own. A command counts only there, so
// that nothing shown as code or quoted — an example, a pasted log, a reply
// quoting someone — runs anything. It fails closed: where GitHub's
// markdown could render a line either way, the line is not a command.
//
// Not plain text:
//   - fenced code (``` or ~~~, up to three spaces in) until its fence
//     closes, or the end of the body;
//   - indented code: a line whose indentation reaches column 4 (four
//     spaces, or a tab), even where CommonMark would continue a paragraph;
//   - raw HTML that shows code or hides text: <pre>, <code>, <kbd>,
//     <samp>, <tt>, <textarea>, <script>, <style>, from the opening tag to
//     the closing one, across lines;
//   - what GitHub's sanitizer drops from the page: an HTML comment, from
//     <!-- to -->; a processing instruction, <? to ?>; a declaration, <!
//     and a letter to >; a CDATA section, <![CDATA[ to ]]> (CommonMark's
//     HTML blocks 2 to 5, and their inline forms), across lines;
//   - an inline code span opened by a backtick run and not closed before
//     the line ends: the rest of the paragraph (a code span may span lines);
//   - a quote: a line starting with '>', and every line after it until a
//     blank line (CommonMark's lazy continuation keeps them in the quote).
type scanner struct {
	fence  string // the open code fence, "" when none
	hidden string // the end ("-->", "?>", ">", "]]>") of the open hidden HTML, "" when none
	raw    int    // open raw HTML elements (<pre>, <code>, …)
	ticks  int    // length of the open inline code span's backtick run, 0 when none
	quote  bool   // the paragraph is a quote
}

// command returns the words after /kyku when line is a command line, and
// takes line into account for the lines after it.
func (s *scanner) command(line string) (string, bool) {
	if s.fence != "" {
		if closesFence(line, s.fence) {
			s.fence = ""
		}
		return "", false
	}
	if s.hidden != "" || s.raw > 0 {
		s.inline(line)
		return "", false
	}
	if strings.TrimSpace(line) == "" {
		s.quote, s.ticks = false, 0
		return "", false
	}
	col, text := indent(line)
	switch {
	case col >= 4, s.ticks > 0, s.quote:
		// Indented code, the rest of an open code span, or a quote's
		// lazy continuation.
	case strings.HasPrefix(text, ">"):
		s.quote = true
	default:
		if f := opensFence(line); f != "" {
			s.fence = f
			return "", false
		}
		if rest, ok := strings.CutPrefix(text, Prefix); ok {
			if r, _ := utf8.DecodeRuneInString(rest); rest == "" || unicode.IsSpace(r) {
				return rest, true
			}
		}
	}
	s.inline(line)
	return "", false
}

// indent is the column line's text starts at (a tab advances to the next
// multiple of 4, as CommonMark counts) and the text after the spaces and
// tabs.
func indent(line string) (int, string) {
	col, i := 0, 0
	for ; i < len(line); i++ {
		switch line[i] {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return col, line[i:]
		}
	}
	return col, ""
}

// rawTags are the HTML elements whose content is shown as code or not
// shown as text at all.
var rawTags = []string{"pre", "code", "kbd", "samp", "tt", "textarea", "script", "style"}

// inline follows, through line, what stays open at its end: hidden HTML
// (a comment, …), raw HTML elements, an inline code span.
func (s *scanner) inline(line string) {
	for i := 0; i < len(line); {
		switch {
		case s.hidden != "":
			j := strings.Index(line[i:], s.hidden)
			if j < 0 {
				return
			}
			s.hidden, i = "", i+j+len(s.hidden)
		case s.ticks > 0 && s.raw == 0:
			// Only a run of exactly the opening length closes a code span.
			j := strings.IndexByte(line[i:], '`')
			if j < 0 {
				return
			}
			i += j
			n := run(line[i:], '`')
			if n == s.ticks {
				s.ticks = 0
			}
			i += n
		case line[i] == '`' && s.raw == 0:
			n := run(line[i:], '`')
			s.ticks, i = n, i+n
		case line[i] == '<':
			if n, end := hiddenHTML(line[i:]); n > 0 && s.raw == 0 {
				s.hidden, i = end, i+n
				continue
			}
			n, delta := rawTag(line[i:])
			s.raw = max(0, s.raw+delta)
			i += max(n, 1)
		default:
			i++
		}
	}
}

// hiddenHTML reads the opening of HTML that GitHub does not show, at the
// start of s: its length and what closes it; 0, "" for anything else.
// These are CommonMark's HTML blocks 2 to 5 (and their inline forms): a
// comment, a CDATA section (in any case: fail closed), a declaration (<!
// and an ASCII letter), a processing instruction. The HTML parser of
// GitHub's sanitizer ends the last three at the first '>', never after
// these ends: hiding to them fails closed.
func hiddenHTML(s string) (int, string) {
	switch {
	case strings.HasPrefix(s, "<!--"):
		return 4, "-->"
	case len(s) >= 9 && strings.EqualFold(s[:9], "<![CDATA["):
		return 9, "]]>"
	case len(s) >= 3 && strings.HasPrefix(s, "<!") && isASCIILetter(s[2]):
		return 2, ">"
	case strings.HasPrefix(s, "<?"):
		return 2, "?>"
	}
	return 0, ""
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// run is the length of the run of c that s starts with.
func run(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// rawTag reads a raw element's opening or closing tag at the start of s
// ("<pre>", "<code class=x>", "</PRE>"): its length and +1 (opens) or -1
// (closes); 0, 0 for anything else, a self-closing tag included.
func rawTag(s string) (int, int) {
	end := strings.IndexByte(s, '>')
	if end < 0 || !strings.HasPrefix(s, "<") {
		return 0, 0
	}
	tag := strings.ToLower(s[1:end])
	delta := 1
	if rest, ok := strings.CutPrefix(tag, "/"); ok {
		tag, delta = rest, -1
	}
	if strings.HasSuffix(tag, "/") {
		return 0, 0
	}
	name := tag
	if i := strings.IndexFunc(tag, unicode.IsSpace); i >= 0 {
		name = tag[:i]
	}
	for _, t := range rawTags {
		if name == t {
			return end + 1, delta
		}
	}
	return 0, 0
}

// opensFence returns the fence (``` or ~~~, or longer) that line opens.
func opensFence(line string) string {
	s, ok := fenceIndent(line)
	if !ok {
		return ""
	}
	for _, c := range []byte{'`', '~'} {
		n := run(s, c)
		if n >= 3 && (c == '~' || !strings.ContainsRune(s[n:], '`')) {
			return s[:n]
		}
	}
	return ""
}

// closesFence reports whether line closes fence: the same character, at
// least as many, nothing else but spaces.
func closesFence(line, fence string) bool {
	s, ok := fenceIndent(line)
	if !ok {
		return false
	}
	n := run(s, fence[0])
	return n >= len(fence) && strings.TrimSpace(s[n:]) == ""
}

// fenceIndent strips up to three leading spaces, as CommonMark allows.
func fenceIndent(line string) (string, bool) {
	n := run(line, ' ')
	return line[n:], n <= 3
}
