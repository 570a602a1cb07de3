package render

import (
	"net/url"
	"strings"

	"github.com/kyku/action/internal/markdown"
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
	// ShowUnchanged lists the unchanged resources of a plan comment or
	// summary (by default one line counts them).
	ShowUnchanged bool
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

// code renders s as an inline code span on one line, long values cut.
func code(s string) string { return markdown.Span(truncateRunes(oneLine(s), maxCell)) }

// cellCode is code for a table cell: pipes escaped.
func cellCode(s string) string { return markdown.Cell(truncateRunes(oneLine(s), maxCell)) }

// text escapes s for inline markdown (markdown.Text), on one line, long
// text cut.
func text(s string) string { return markdown.Text(truncateRunes(oneLine(s), 2*maxCell)) }

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

// Footer is the provenance line of a comment: commit, plan digest, run
// link (each left out when m has none).
func Footer(m Meta) string {
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
	if u := markdown.URL(m.RunURL); u != "" {
		parts = append(parts, "[workflow run]("+u+")")
	}
	if len(parts) == 0 {
		return ""
	}
	return "---\n<sub>" + strings.Join(parts, " · ") + "</sub>\n"
}

// plural is "1 resource" or "n resources" ("n entries"): noun.Count.
func plural(n int, word string) string { return noun.Count(n, word) }
