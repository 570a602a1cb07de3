package review

import (
	"context"
	"errors"
	"fmt"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/render"
)

// Drift refreshes one environment (writing the state only when
// req.WriteState) and keeps exactly ONE open issue per project and
// environment, labelled Settings.DriftLabel and found by
// render.DriftMarker, that only speaks when the drift changes:
//
//   - new drift opens the issue with a table of what drifted;
//   - the same drift again (the same fingerprint: see newFingerprint)
//     writes nothing and notifies no one;
//   - new or changed drift updates the issue and adds ONE comment saying
//     what is new and how many earlier drifts are gone;
//   - no drift closes an open issue with a comment.
//
// The fingerprint is read back only from Kyku's own issue (written by the
// account Kyku writes as); an issue without one counts as changed.
func Drift(ctx context.Context, d Deps, req DriftRequest) (*DriftOutcome, error) {
	d, err := d.withDefaults()
	if err != nil {
		return nil, err
	}
	s, err := req.Settings.withDefaults()
	if err != nil {
		return nil, err
	}
	if req.Config == nil {
		return nil, errors.New("drift: no config")
	}
	for _, x := range req.Config.OutsideValues() {
		d.Mask(x)
	}
	ws, err := d.open(ctx, req.Config, s.Environment)
	if err != nil {
		return nil, err
	}
	res, err := ws.Engine.Refresh(ctx, engine.RefreshOptions{WriteState: req.WriteState, Config: req.Config})
	if err != nil {
		return nil, fmt.Errorf("refresh %s: %w", envName(s.Environment), err)
	}
	for _, dr := range res.Drift {
		for _, pc := range dr.Properties {
			if !pc.Sensitive {
				continue
			}
			for _, v := range []any{pc.Old, pc.New} {
				if x, ok := v.(string); ok && x != "" {
					d.Mask(x)
				}
			}
		}
	}
	out := &DriftOutcome{Drift: res.HasDrift(), Result: res}
	marker := render.DriftMarker(s.Project, s.Environment)
	// FindOpenIssue only sees issues written by the account Kyku writes
	// as: the fingerprint read back from the body is Kyku's own.
	issue, err := d.GitHub.FindOpenIssue(ctx, s.DriftLabel, marker)
	if err != nil {
		return out, fmt.Errorf("find the drift issue: %w", err)
	}
	m := render.Meta{RunURL: d.RunURL, Environment: s.Environment, Project: s.Project}
	if !out.Drift {
		if issue != nil {
			if err := d.GitHub.CloseIssue(ctx, issue.Number, render.DriftResolvedComment(m)); err != nil {
				return out, fmt.Errorf("close drift issue #%d: %w", issue.Number, err)
			}
			out.IssueURL, out.Closed, out.Notified = issue.HTMLURL, true, true
		}
		return out, nil
	}
	fp := newFingerprint(res.Drift)
	out.Fingerprint = fp.digest
	var before fingerprint
	if issue != nil {
		out.IssueURL = issue.HTMLURL
		before = parseFingerprint(issue.Body)
		if before.digest == fp.digest {
			return out, nil // the same drift: nothing to say
		}
	}
	rd := render.Drift{Environment: s.Environment, CheckedAt: d.Now().UTC()}
	for _, dr := range res.Drift {
		rd.Resources = append(rd.Resources, render.DriftedResource{
			Type: dr.Type, Name: dr.Name, ProviderID: dr.ProviderID, Gone: dr.Gone, Properties: dr.Properties,
		})
	}
	line := fp.line()
	title, body := render.DriftTitle(s.Project, s.Environment), render.DriftIssue(rd, m, render.CommentLimit-len(line)-1)+line+"\n"
	out.Notified = true
	if issue == nil {
		created, err := d.GitHub.CreateIssue(ctx, title, body, []string{s.DriftLabel})
		if err != nil {
			return out, fmt.Errorf("open drift issue: %w", err)
		}
		out.IssueURL = created.HTMLURL
		out.New = fp.list()
		return out, nil
	}
	if err := d.GitHub.UpdateIssue(ctx, issue.Number, title, body); err != nil {
		return out, fmt.Errorf("update drift issue #%d: %w", issue.Number, err)
	}
	var gone int
	out.New, gone = fp.since(before)
	if _, err := d.GitHub.CreateComment(ctx, issue.Number, driftNewsComment(out.New, gone, before.digest == "", m)); err != nil {
		return out, fmt.Errorf("comment on drift issue #%d: %w", issue.Number, err)
	}
	return out, nil
}
