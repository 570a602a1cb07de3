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
// render.DriftMarker: on drift it is updated in place, or opened with a
// table of what drifted; when drift is gone an open one is closed with a
// comment. Nothing is commented when there is no drift and no issue.
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
	for _, x := range secrets(req.Config) {
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
	issue, err := d.GitHub.FindOpenIssue(ctx, s.DriftLabel, marker)
	if err != nil {
		return out, fmt.Errorf("find the drift issue: %w", err)
	}
	m := render.Meta{RunURL: d.RunURL, Environment: s.Environment, Project: s.Project}
	switch {
	case out.Drift:
		rd := render.Drift{Environment: s.Environment, CheckedAt: d.Now().UTC()}
		for _, dr := range res.Drift {
			rd.Resources = append(rd.Resources, render.DriftedResource{
				Type: dr.Type, Name: dr.Name, ProviderID: dr.ProviderID, Gone: dr.Gone, Properties: dr.Properties,
			})
		}
		title, body := render.DriftTitle(s.Project, s.Environment), render.DriftIssue(rd, m, render.CommentLimit)
		if issue != nil {
			if err := d.GitHub.UpdateIssue(ctx, issue.Number, title, body); err != nil {
				return out, fmt.Errorf("update drift issue #%d: %w", issue.Number, err)
			}
			out.IssueURL = issue.HTMLURL
			return out, nil
		}
		created, err := d.GitHub.CreateIssue(ctx, title, body, []string{s.DriftLabel})
		if err != nil {
			return out, fmt.Errorf("open drift issue: %w", err)
		}
		out.IssueURL = created.HTMLURL
	case issue != nil:
		if err := d.GitHub.CloseIssue(ctx, issue.Number, render.DriftResolvedComment(m)); err != nil {
			return out, fmt.Errorf("close drift issue #%d: %w", issue.Number, err)
		}
		out.IssueURL, out.Closed = issue.HTMLURL, true
	}
	return out, nil
}
