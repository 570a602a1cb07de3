package review

import (
	"net/url"
	"strings"
)

// The markdown of replies this package writes itself (refusals, errors).
// Everything a user or an engine controls goes through code or fenced, so
// it cannot inject markup or mention anyone.

// Code is s as an inline code span on one line, its fence longer than any
// backtick run in s: text a repository or a user controls (a branch name,
// a file name) cannot add markup or mention anyone through it.
func Code(s string) string { return code(s) }

// Fenced is s verbatim in a fenced code block whose fence is longer than
// any backtick run in s (cut at 60,000 bytes, to fit a check run): an
// error quoting a file name cannot break out of it.
func Fenced(s string) string { return fencedN(s, 60000) }

// code is an inline code span on one line whose fence is longer than any
// backtick run in s.
func code(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "`\"\"`"
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// fenced is a fenced code block holding s verbatim (cut at 4,000 bytes).
func fenced(s string) string { return fencedN(s, 4000) }

func fencedN(s string, limit int) string {
	if len(s) > limit {
		s = strings.ToValidUTF8(s[:limit], "") + "…"
	}
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

// safeURL returns u when it is an absolute http(s) URL that cannot end a
// markdown link early, otherwise "".
func safeURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
		return ""
	}
	return strings.NewReplacer("(", "%28", ")", "%29", " ", "%20", "<", "%3C", ">", "%3E").Replace(p.String())
}

// footer is the provenance line of a reply: commit and run link.
func footer(sha, runURL string) string {
	var parts []string
	if sha != "" {
		if isHex(sha) {
			parts = append(parts, "Commit "+sha) // bare, so GitHub links it
		} else {
			parts = append(parts, "Commit "+code(sha))
		}
	}
	if u := safeURL(runURL); u != "" {
		parts = append(parts, "[workflow run]("+u+")")
	}
	if len(parts) == 0 {
		return ""
	}
	return "---\n<sub>" + strings.Join(parts, " · ") + "</sub>\n"
}

func isHex(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return s != ""
}

// title is "Kyku apply for `prod` (project `net`)".
func title(what string, s Settings) string {
	t := "Kyku " + what + " for " + code(envName(s.Environment))
	if s.Project != "" {
		t += " (project " + code(s.Project) + ")"
	}
	return t
}

// commandFor is the /kyku command for s's environment and project.
func commandFor(name string, s Settings) string {
	c := "/kyku " + name
	if s.Environment != "" {
		c += " -e " + s.Environment
	}
	if s.Project != "" {
		c += " -p " + s.Project
	}
	return c
}

// reply is a reply comment: the marker, a heading, the text and the footer.
func reply(marker, heading, text, sha, runURL string) string {
	var b strings.Builder
	if marker != "" {
		b.WriteString(marker + "\n")
	}
	b.WriteString("### " + heading + "\n\n" + strings.TrimRight(text, "\n") + "\n\n")
	b.WriteString(footer(sha, runURL))
	return b.String()
}
