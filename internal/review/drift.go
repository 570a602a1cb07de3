package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/statemgr"
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
// The fingerprint is kept in the backend with the issue it belongs to and
// the digest of the body Kyku wrote (DriftKey), never read back from the
// issue: an issue without a record counts as changed, and one whose body
// someone edited is written again, with a comment saying so.
func Drift(ctx context.Context, d Deps, req DriftRequest) (*DriftOutcome, error) {
	d, s, err := ready(d, req.Settings)
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
	var res *engine.RefreshResult
	defer ws.close()
	// A Terraform root's count or for_each reading state or a data
	// source is expanded with them now (config.Config.Pending).
	cfg, err := ws.complete(ctx, req.Config)
	if err == nil {
		res, err = ws.Engine.Refresh(ctx, engine.RefreshOptions{WriteState: req.WriteState, Config: cfg})
	}
	if err != nil {
		// Scrubbed of the configuration's secrets and of what state and
		// the providers hold as secret (the engine's book).
		return nil, fmt.Errorf("refresh %s: %w", envName(s.Environment), progress.SecretsOf(req.Config, nil).Add(ws.Engine.Secrets().Known()).Error(err))
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
	var gh Issues = d.GitHub
	out := &DriftOutcome{Drift: res.HasDrift(), Result: res}
	marker := render.DriftMarker(s.Project, s.Environment)
	// FindOpenIssue only sees issues written by the account Kyku writes
	// as; what it last said is in the backend, not in the issue.
	issue, err := gh.FindOpenIssue(ctx, s.DriftLabel, marker)
	if err != nil {
		return out, fmt.Errorf("find the drift issue: %w", err)
	}
	m := render.Meta{RunURL: d.RunURL, Environment: s.Environment, Project: s.Project}
	if !out.Drift {
		if issue != nil {
			if err := gh.CloseIssue(ctx, issue.Number, render.DriftResolvedComment(m)); err != nil {
				return out, fmt.Errorf("close drift issue #%d: %w", issue.Number, err)
			}
			out.IssueURL, out.Closed, out.Notified = issue.HTMLURL, true, true
		}
		return out, nil
	}
	fp := newFingerprint(res.Drift)
	out.Fingerprint = fp.digest
	rec, err := readDriftRecord(ctx, ws, s)
	if err != nil {
		return out, err
	}
	var before fingerprint
	if issue != nil {
		out.IssueURL = issue.HTMLURL
		if rec.Issue == issue.Number {
			before = rec.fingerprint()
		}
		if before.digest == fp.digest && bodyDigest(issue.Body) == rec.BodySHA256 {
			return out, nil // the same drift: nothing to say
		}
	}
	rd := render.Drift{Environment: s.Environment, CheckedAt: d.Now().UTC()}
	for _, dr := range res.Drift {
		rd.Resources = append(rd.Resources, render.DriftedResource{
			Type: dr.Type, Name: dr.Name, ProviderID: dr.ProviderID, Gone: dr.Gone, Properties: dr.Properties,
		})
	}
	title, body := render.DriftTitle(s.Project, s.Environment), render.DriftIssue(rd, m, render.CommentLimit)
	out.Notified = true
	if issue == nil {
		created, err := gh.CreateIssue(ctx, title, body, []string{s.DriftLabel})
		if err != nil {
			return out, fmt.Errorf("open drift issue: %w", err)
		}
		out.IssueURL = created.HTMLURL
		out.New = fp.list()
		return out, writeDriftRecord(ctx, ws, s, created.Number, fp, body)
	}
	if err := gh.UpdateIssue(ctx, issue.Number, title, body); err != nil {
		return out, fmt.Errorf("update drift issue #%d: %w", issue.Number, err)
	}
	if err := writeDriftRecord(ctx, ws, s, issue.Number, fp, body); err != nil {
		return out, err
	}
	var news string
	if before.digest == fp.digest {
		// The same drift, but the issue no longer says what Kyku wrote.
		news = driftEditedComment(m)
	} else {
		var gone int
		out.New, gone = fp.since(before)
		news = driftNewsComment(out.New, gone, before.digest == "", m)
	}
	if _, err := gh.CreateComment(ctx, issue.Number, news); err != nil {
		return out, fmt.Errorf("comment on drift issue #%d: %w", issue.Number, err)
	}
	return out, nil
}

// readDriftRecord reads the drift record (zero when there is none, or it
// is not one Kyku wrote: then the drift counts as changed).
func readDriftRecord(ctx context.Context, ws *Workspace, s Settings) (driftRecord, error) {
	key := DriftKey(s.Project, s.Environment)
	data, err := ws.Backend.GetObject(ctx, key)
	if errors.Is(err, statemgr.ErrNotFound) {
		return driftRecord{}, nil
	}
	if err != nil {
		return driftRecord{}, fmt.Errorf("read the drift record %s: %w", key, err)
	}
	var rec driftRecord
	if json.Unmarshal(data, &rec) != nil || !digestRE().MatchString(rec.Fingerprint) {
		return driftRecord{}, nil
	}
	return rec, nil
}

// writeDriftRecord keeps what the drift issue now says.
func writeDriftRecord(ctx context.Context, ws *Workspace, s Settings, issue int, fp fingerprint, body string) error {
	key := DriftKey(s.Project, s.Environment)
	data, err := json.MarshalIndent(driftRecord{Issue: issue, Fingerprint: fp.digest, IDs: fp.ids, BodySHA256: bodyDigest(body)}, "", "  ")
	if err == nil {
		err = ws.Backend.PutObject(ctx, key, append(data, '\n'))
	}
	if err != nil {
		return fmt.Errorf("write the drift record %s: %w", key, err)
	}
	return nil
}
