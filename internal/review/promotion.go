package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/statemgr"
)

// Promotion: with Settings.Promotion [staging, prod], an apply to prod is
// refused until staging has applied the same head commit successfully.
//
// What Kyku trusts for "staging applied it": an audit record under
// runs/staging/ (written by Kyku at the end of every apply that ran) that
// names staging, this project, this pull request and head commit, and
// reports no failed or skipped change — AND Kyku's own result comment
// on the pull request for staging (written by the account Kyku writes
// as: GitHub.OwnComments) that names the same head and the same audit
// record. Anyone who can write to the backend can write an audit record,
// so the record alone is not enough; the comment ties it to a run of
// Kyku. For the bot, Kyku's account is the App, which no workflow can
// write as. For the Action it is the workflow token's account, which a
// same-repository pull request's workflow can also write as: there,
// give the pull requests' role no write access to runs/ in the bucket
// (docs/security.md, "Environment promotion").

// MaxAuditRecordBytes bounds an audit record read back for promotion.
const MaxAuditRecordBytes = 1 << 20

// appliedRE is the hidden line of a successful apply's result comment.
var appliedRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^<!-- kyku:applied env=(\S*) head=([0-9a-fA-F]{7,64}) audit=(\S+) -->$`)
})

// appliedLine is the hidden line of a successful apply's result comment:
// which environment applied which head commit, and its audit record.
func appliedLine(env, head, auditKey string) string {
	return "<!-- kyku:applied env=" + url.PathEscape(env) + " head=" + head + " audit=" + url.PathEscape(auditKey) + " -->"
}

// PromotionOrder sorts envs by promotion (environments not in it keep
// their order, after those that are).
func PromotionOrder(promotion, envs []string) []string {
	out := slices.Clone(envs)
	rank := func(e string) int {
		if i := slices.Index(promotion, e); i >= 0 {
			return i
		}
		return len(promotion)
	}
	slices.SortStableFunc(out, func(a, b string) int { return rank(a) - rank(b) })
	return out
}

// promotionRefusal is the promotion requirement (nil when met): every
// environment before this one in Settings.Promotion applied the pull
// request's head commit successfully.
func (a *applier) promotionRefusal(ctx context.Context, ws *Workspace) (*Refusal, error) {
	i := slices.Index(a.s.Promotion, a.s.Environment)
	if i <= 0 {
		return nil, nil
	}
	for _, earlier := range a.s.Promotion[:i] {
		ok, why, err := a.appliedIn(ctx, ws, earlier)
		if err != nil {
			return nil, err
		}
		if !ok {
			return refusal(RequirePromotion, promotionText(a.request(), earlier, why)), nil
		}
	}
	return nil, nil
}

// appliedIn reports whether env applied the pull request's head commit
// successfully, by an audit record corroborated by Kyku's own comment.
// why says what was found when not.
func (a *applier) appliedIn(ctx context.Context, ws *Workspace, env string) (bool, string, error) {
	head := a.pr.HeadSHA
	cs, err := a.d.GitHub.OwnComments(ctx, a.pr.Number, render.ApplyMarker(a.s.Project, env))
	if err != nil {
		return false, "", fmt.Errorf("read Kyku's apply comments for %s on #%d: %w", env, a.pr.Number, err)
	}
	claimed := map[string]bool{} // audit keys Kyku's own comments name for this head
	for _, c := range cs {
		for _, m := range appliedRE().FindAllStringSubmatch(c.Body, -1) {
			e, err1 := url.PathUnescape(m[1])
			key, err2 := url.PathUnescape(m[3])
			if err1 == nil && err2 == nil && e == env && strings.EqualFold(m[2], head) {
				claimed[key] = true
			}
		}
	}
	if len(claimed) == 0 {
		return false, " (no result of Kyku's for it on this pull request)", nil
	}
	prefix := strings.TrimSuffix(AuditKey(a.s.Project, env, a.d.Now(), 0), "0.json")
	prefix = prefix[:strings.LastIndexByte(prefix, '/')+1]
	keys, err := ws.Backend.ListObjects(ctx, prefix)
	if err != nil {
		return false, "", fmt.Errorf("list the audit records of %s: %w", env, err)
	}
	suffix := "-pr" + itoa(a.pr.Number) + ".json"
	found := false
	for _, key := range slices.Backward(keys) { // newest first
		if !strings.HasSuffix(key, suffix) || !claimed[key] {
			continue
		}
		found = true
		data, err := ws.Backend.GetObject(ctx, key)
		if errors.Is(err, statemgr.ErrNotFound) {
			continue
		}
		if err != nil {
			return false, "", fmt.Errorf("read audit record %s: %w", key, err)
		}
		if a.successfulRecord(data, env, head) {
			return true, "", nil
		}
	}
	if found {
		return false, " (its last apply of it did not succeed)", nil
	}
	return false, " (no audit record of it)", nil
}

// successfulRecord reports whether data is an audit record of a complete,
// successful apply of head to env for this project and pull request.
func (a *applier) successfulRecord(data []byte, env, head string) bool {
	if len(data) > MaxAuditRecordBytes {
		return false
	}
	var rec AuditRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return false
	}
	return rec.Environment == env && rec.Project == a.s.Project && rec.PR == a.pr.Number &&
		strings.EqualFold(rec.HeadSHA, head) && rec.Failed == 0 && rec.Skipped == 0 && !rec.FinishedAt.IsZero()
}
