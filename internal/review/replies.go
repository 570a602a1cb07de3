package review

import (
	"strings"

	"github.com/kyku/action/internal/command"
	"github.com/kyku/action/internal/markdown"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/render"
)

// The markdown of replies this package writes itself (refusals, errors).
// Everything a user or an engine controls goes through code or fenced
// (package markdown), so it cannot inject markup or mention anyone.

// Fenced is s verbatim in a fenced code block (markdown.Block), cut at
// 60,000 bytes to fit a check run: an error quoting a file name cannot
// break out of it.
func Fenced(s string) string { return fencedN(s, 60000) }

func code(s string) string { return markdown.Code(s) }

// fenced is a fenced code block holding s verbatim (cut at 4,000 bytes).
func fenced(s string) string { return fencedN(s, 4000) }

func fencedN(s string, limit int) string {
	if len(s) > limit {
		s = strings.ToValidUTF8(s[:limit], "") + "…"
	}
	return markdown.Block(s)
}

// footer is the provenance line of a reply: commit and run link.
func footer(sha, runURL string) string {
	return render.Footer(render.Meta{CommitSHA: sha, RunURL: runURL})
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

// refusedReply is the reply to an apply a requirement refused.
func refusedReply(s Settings, r *Refusal, sha, runURL string) string {
	return reply(render.ApplyMarker(s.Project, s.Environment), title("apply", s)+" refused", r.Message+"\n\nNothing was applied.", sha, runURL)
}

// refusedWithPlanReply is the reply to an apply refused because the fresh
// plan is not the reviewed one: it shows the fresh plan for review (the
// plan's summary, digest in m).
func refusedWithPlanReply(s Settings, r *Refusal, fresh *plan.Plan, m render.Meta) string {
	text := r.Message + "\n\nNothing was applied. What Kyku would apply now, for review:\n\n"
	limit := render.CommentLimit - len(text) - 1024
	return reply(render.ApplyMarker(s.Project, s.Environment), title("apply", s)+" refused", text+render.PlanSummary(fresh, m, limit), m.CommitSHA, m.RunURL)
}

// applyFailedReply is the reply to an apply an error stopped before
// anything changed.
func applyFailedReply(r request, err error, sha, runURL string) string {
	text := "The apply could not run:\n\n" + fenced(err.Error()) + "\nNothing was applied. " + r.replanAfterError()
	return reply(render.ApplyMarker(r.s.Project, r.s.Environment), title("apply", r.s)+" failed", text, sha, runURL)
}

// CommandRefused is the one-line reply to a `/kyku` command a requirement
// refused before it ran (who may plan, the apply mode).
func CommandRefused(command string, r *Refusal) string {
	return "**Kyku did not run " + code(command) + ":** " + r.Message + "\n"
}

// CommandUnchecked is the one-line reply to a `/kyku` command (plan or
// apply) whose requester's permission could not be checked: GitHub failed
// (the error is the log's; its text is not shown), so nothing ran.
func CommandUnchecked(name command.Name, user string) string {
	done := "applied"
	if name == command.Plan {
		done = "planned"
	}
	return "**Kyku did not run " + code("/kyku "+name.String()) + ":** GitHub failed when Kyku checked whether " + code(user) +
		" may run it, so nothing was " + done + ". Comment " + code("/kyku "+name.String()) + " again in a moment.\n"
}

// HeadUnchecked is the one-line reply to a /kyku apply when GitHub failed
// to say whether head came after the comment (PushedAfterComment's
// error): nothing was applied.
func HeadUnchecked(head string) string {
	return "**Kyku did not run " + code("/kyku apply") + ":** GitHub failed when Kyku checked whether " + code(sha7(head)) +
		" was pushed after the comment (a head pushed after it is not applied), so nothing was applied. Comment " +
		code("/kyku apply") + " again in a moment.\n"
}

// commandErrorReply is the reply to a `/kyku` command that cannot be read:
// the error and the help.
func commandErrorReply(msg, runURL string) string {
	return reply("", "Kyku could not read the command", "That command could not be run:\n\n"+fenced(msg)+"\n"+render.HelpComment(), "", runURL)
}

// applyNotes follow an apply's result comment: the error after the
// changes ran (runErr, scrubbed), an audit record that could not be
// written, the policy owners whose approval overrode the policies.
func applyNotes(runErr error, noAudit bool, overriddenBy []string) string {
	var note string
	if runErr != nil {
		note += "> [!WARNING]\n> The changes ran, but then: " + code(runErr.Error()) +
			"\n> The next run recovers the finished changes from the journal.\n\n"
	}
	if noAudit {
		note += "> [!WARNING]\n> The audit record of this apply could not be written.\n\n"
	}
	if len(overriddenBy) > 0 {
		var who []string
		for _, o := range overriddenBy {
			who = append(who, code(o))
		}
		note += "> [!IMPORTANT]\n> The policies blocked this plan; the approval of policy owner " + strings.Join(who, ", ") +
			" overrode them (recorded in the audit record).\n\n"
	}
	return note
}
