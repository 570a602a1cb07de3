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
// request's head; nil when it is exactly that comment, untouched since. A
// comment for an older head without a record for the current one is left
// to the comparison of heads (mismatch), which says so.
func (a *applier) commentRefusal(ctx context.Context, ws *Workspace, c github.Comment, head string) (*Refusal, error) {
	key := PostedKey(a.s.Project, a.s.Environment, a.pr.Number, a.pr.HeadSHA)
	data, err := ws.Backend.GetObject(ctx, key)
	if errors.Is(err, statemgr.ErrNotFound) && head != a.pr.HeadSHA {
		return nil, nil
	}
	f := commentFacts{key: key, url: c.HTMLURL, id: c.ID}
	if errors.Is(err, statemgr.ErrNotFound) {
		f.why = commentNotRecorded
		return refusal(RequireReviewedPlan, commentText(a.request(), f)), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the record of the plan comment %s: %w", key, err)
	}
	var rec Posted
	if err := json.Unmarshal(data, &rec); err != nil || rec.Comment == 0 {
		f.why = commentBadRecord
		return refusal(RequireReviewedPlan, commentText(a.request(), f)), nil
	}
	if rec.Comment != c.ID {
		f.why, f.ofRec = commentNotPosted, rec.Comment
		return refusal(RequireReviewedPlan, commentText(a.request(), f)), nil
	}
	if bodyDigest(c.Body) == rec.BodySHA256 && c.UpdatedAt.Equal(rec.UpdatedAt) {
		return nil, nil
	}
	// Edited since Kyku posted it: say by whom and when.
	f.why, f.at = commentEdited, c.UpdatedAt
	e, err := a.d.GitHub.LastEdit(ctx, c)
	switch {
	case err != nil:
		a.d.Log.WarnContext(ctx, "could not tell who edited the plan comment", "comment", c.ID, "error", err)
	case e.Editor != "":
		f.editor = e.Editor
		if !e.EditedAt.IsZero() {
			f.at = e.EditedAt
		}
	}
	return refusal(RequireReviewedPlan, commentText(a.request(), f)), nil
}

func itoa64(n int64) string { return fmt.Sprint(n) }
