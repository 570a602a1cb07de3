package render

import (
	"net/url"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/kyku/action/internal/noun"
)

// Meta is what a markdown footer says about where a rendering came from.
type Meta struct {
	CommitSHA   string // head commit the plan or apply is for
	Digest      string // the plan digest shown in the footer (review.ChangesDigest for plans)
	RunURL      string // the workflow run or bot job
	ArtifactURL string // where the full plan.json can be downloaded
	Environment string
	Project     string
	// Policy, when set, is the policy check shown before the changes of a
	// plan comment or summary (nil: the repository has no policies).
	Policy *PolicyReport
	// RulesChanged are the files holding review rules (settings, policies,
	// the workflow's inputs) the pull request changes: said at the top of
	// its plan comment, since they judge only the pull requests after it.
	RulesChanged []string
	// ProvidersChanged names what the pull request changes of the
	// Terraform providers (`providers:` entries, lock files): said at
	// the top of its plan comment, since the plan ran the default
	// branch's.
	ProvidersChanged []string
}

// maxCell is how many runes of one value a table cell or diff line shows.
const maxCell = 300

// PlanMarker is the hidden first line of a plan comment, by which the sticky
// comment for one project and environment is found again and edited.
func PlanMarker(project, env string) string { return marker("plan", project, env) }

// ApplyMarker is the hidden first line of an apply-result comment.
func ApplyMarker(project, env string) string { return marker("apply", project, env) }

// DriftMarker is the hidden first line of a drift issue's body.
func DriftMarker(project, env string) string { return marker("drift", project, env) }

// marker is `<!-- kyku:<kind> env=<env> project=<project> -->`, each field
// left out when empty and percent-escaped so that no name can end the
// comment early or make two markers collide.
func marker(kind, project, env string) string {
	s := "<!-- kyku:" + kind
	if env != "" {
		s += " env=" + url.PathEscape(env)
	}
	if project != "" {
		s += " project=" + url.PathEscape(project)
	}
	return s + " -->"
}

// envName is how an environment is named to people.
func envName(env string) string {
	if env == "" {
		return "default"
	}
	return env
}

// code renders s as an inline code span on one line, long values cut, the
// backtick fence made longer than any backtick run inside s.
func code(s string) string {
	s = truncateRunes(oneLine(s), maxCell)
	if s == "" {
		return "`\"\"`"
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// cellCode is code for a table cell: pipes escaped, as GFM tables need even
// inside code spans.
func cellCode(s string) string { return strings.ReplaceAll(code(s), "|", `\|`) }

// text escapes s for inline markdown: the ASCII punctuation that markdown
// or HTML could act on is backslash-escaped (no emphasis, link, HTML tag,
// entity or table cell break), an @ is followed by a zero-width space so a
// name cannot mention anyone, control characters are escaped, and long text
// is cut.
func text(s string) string {
	s = truncateRunes(oneLine(s), 2*maxCell)
	var b strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf && strings.ContainsRune("\\`*_{}[]<>()#!|~&", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
		if r == '@' {
			b.WriteString("\u200b")
		}
	}
	return b.String()
}

// htmlText escapes s for raw HTML content (a <summary>), on one line, with
// a zero-width space after each @ so that it cannot mention anyone.
func htmlText(s string) string { return htmlEscaper().Replace(oneLine(s)) }

var (
	htmlEscaper = sync.OnceValue(func() *strings.Replacer {
		return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "@", "@\u200b")
	})
	urlEscaper = sync.OnceValue(func() *strings.Replacer {
		return strings.NewReplacer("(", "%28", ")", "%29", " ", "%20", "<", "%3C", ">", "%3E")
	})
)

// safeURL returns u when it is an absolute http(s) URL, escaped so it cannot
// end a markdown link early; otherwise "".
func safeURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
		return ""
	}
	return urlEscaper().Replace(p.String())
}

// link is a markdown link, or the bare label when u is not a safe URL.
func link(label, u string) string {
	if s := safeURL(u); s != "" {
		return "[" + label + "](" + s + ")"
	}
	return label
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}

// footer is the provenance line: commit, plan digest, run link.
func footer(m Meta) string {
	var parts []string
	if m.CommitSHA != "" {
		if isHex(m.CommitSHA) {
			parts = append(parts, "Commit "+m.CommitSHA) // bare, so GitHub links it
		} else {
			parts = append(parts, "Commit "+code(m.CommitSHA))
		}
	}
	if m.Digest != "" {
		parts = append(parts, "plan digest (sha256) "+code(m.Digest))
	}
	if u := safeURL(m.RunURL); u != "" {
		parts = append(parts, "[workflow run]("+u+")")
	}
	if len(parts) == 0 {
		return ""
	}
	return "---\n<sub>" + strings.Join(parts, " · ") + "</sub>\n"
}

// plural is "1 resource" or "n resources" ("n entries"): noun.Count.
func plural(n int, word string) string { return noun.Count(n, word) }
