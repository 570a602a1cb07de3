package review

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/markdown"
	"github.com/kyku/action/internal/statemgr"
)

// Anyone with write access can edit any comment, Kyku's own included: a
// plan comment still shown as Kyku's may no longer say what Kyku posted.
// So Kyku keeps a record of each plan comment it posts where only it
// writes — the backend, beside the saved plan — and before any apply
// compares the comment with it: the comment must be the one posted for
// the head, with exactly the body posted (its sha256) and not touched
// since (GitHub's updated_at, which moves on every edit, so that an edit
// put back afterwards is caught too).

// PostedKey is the backend key of the record of the plan comment Kyku
// posted for a PR's head: beside the saved plan,
// plans/<env>/pr-<number>-<sha>.comment.json.
func PostedKey(project, env string, number int, sha string) string {
	return strings.TrimSuffix(SavedPlanKey(project, env, number, sha), ".json") + ".comment.json"
}

// Posted is the record of a plan comment Kyku posted.
type Posted struct {
	Comment    int64     `json:"comment"`
	URL        string    `json:"url"`
	Author     string    `json:"author"`
	Head       string    `json:"head"`
	Changes    string    `json:"changes"`    // the ChangesDigest the comment shows
	BodySHA256 string    `json:"bodySha256"` // of the body as GitHub answered it
	UpdatedAt  time.Time `json:"updatedAt"`  // GitHub's updated_at then
	PostedAt   time.Time `json:"postedAt"`
}

func bodyDigest(body string) string {
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:])
}

// recordPosted writes the record of plan comment c, posted for head.
func recordPosted(ctx context.Context, d Deps, ws *Workspace, s Settings, number int, head, digest string, c github.Comment) error {
	rec := Posted{
		Comment: c.ID, URL: c.HTMLURL, Author: c.Author, Head: head, Changes: digest,
		BodySHA256: bodyDigest(c.Body), UpdatedAt: c.UpdatedAt.UTC(), PostedAt: d.Now().UTC(),
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("record the plan comment of #%d: %w", number, err)
	}
	key := PostedKey(s.Project, s.Environment, number, head)
	if err := ws.Backend.PutObject(ctx, key, append(data, '\n')); err != nil {
		return fmt.Errorf("record the plan comment of #%d at %s: %w", number, key, err)
	}
	return nil
}

// commentRefusal compares Kyku's newest plan comment c, which says it
// shows a plan of head, with the record of what Kyku posted for the pull
// request's head; "" when it is exactly that comment, untouched since. A
// comment for an older head without a record for the current one is left
// to the comparison of heads (mismatch), which says so.
func (a *applier) commentRefusal(ctx context.Context, ws *Workspace, c github.Comment, head string) (string, error) {
	sha := code(sha7(a.pr.HeadSHA))
	key := PostedKey(a.s.Project, a.s.Environment, a.pr.Number, a.pr.HeadSHA)
	data, err := ws.Backend.GetObject(ctx, key)
	if errors.Is(err, statemgr.ErrNotFound) && head != a.pr.HeadSHA {
		return "", nil
	}
	if errors.Is(err, statemgr.ErrNotFound) {
		return "Kyku has no record of posting the plan comment for " + sha + " (it keeps one in the backend beside the saved plan), " +
			"so it cannot tell whether the comment still shows what Kyku planned.", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the record of the plan comment %s: %w", key, err)
	}
	var rec Posted
	if err := json.Unmarshal(data, &rec); err != nil || rec.Comment == 0 {
		return "The record of the plan comment for " + sha + " (" + code(key) + ") is not one Kyku wrote.", nil
	}
	link := markdown.Link("Kyku's plan comment", c.HTMLURL)
	if rec.Comment != c.ID {
		return "Kyku's newest plan comment for " + code(envName(a.s.Environment)) + " is not the one it posted for " + sha +
			" (comment " + itoa64(c.ID) + ", posted " + itoa64(rec.Comment) + "), so Kyku cannot tell what was shown for review.", nil
	}
	if bodyDigest(c.Body) == rec.BodySHA256 && c.UpdatedAt.Equal(rec.UpdatedAt) {
		return "", nil
	}
	// Edited since Kyku posted it: say by whom and when.
	who, when := "someone", c.UpdatedAt
	e, err := a.d.GitHub.LastEdit(ctx, c)
	switch {
	case err != nil:
		a.d.Log.WarnContext(ctx, "could not tell who edited the plan comment", "comment", c.ID, "error", err)
	case e.Editor != "":
		who = code(e.Editor)
		if !e.EditedAt.IsZero() {
			when = e.EditedAt
		}
	}
	at := ""
	if !when.IsZero() {
		at = " at " + when.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	return link + " for " + sha + " was edited by " + who + at + ", after Kyku posted it: what reviewers read may not be what Kyku planned, " +
		"so it is no evidence of what was reviewed.", nil
}

func itoa64(n int64) string { return fmt.Sprint(n) }
