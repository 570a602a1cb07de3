package markdown

import "strings"

// Code is s as an inline code span on one line, every run of white space
// (line breaks included) folded into one space: text a repository or a
// user controls (a branch name, an error quoting a file name) cannot add
// markup or mention anyone through it.
func Code(s string) string { return Span(strings.Join(strings.Fields(s), " ")) }

// Span is s, already on one line, as an inline code span whose fence is
// longer than any backtick run in s, padded with a space when s starts or
// ends with a backtick; `""` for an empty s. A line break left in s is
// replaced by a space: no s can end the span's paragraph.
func Span(s string) string {
	if s == "" {
		return "`\"\"`"
	}
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// Cell is Span for a table cell: pipes escaped, as GitHub's tables need
// even inside code spans.
func Cell(s string) string { return strings.ReplaceAll(Span(s), "|", `\|`) }

// Block is s verbatim in a fenced code block of info string "text", its
// fence longer than any backtick run in s (at least three backticks): no
// line of s can close it. Trailing line breaks are dropped; the block
// ends with one.
func Block(s string) string {
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return fence + "text\n" + strings.TrimRight(s, "\n") + "\n" + fence + "\n"
}

func longestRun(s string, c rune) int {
	longest, run := 0, 0
	for _, r := range s {
		if r == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}
