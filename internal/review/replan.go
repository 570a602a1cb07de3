package review

import (
	"context"
	"errors"
	"fmt"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/statemgr"
)

// MaxSavedPlanBytes bounds a saved plan read back from the backend: a
// bigger object is not decoded (it is not one Kyku wrote).
const MaxSavedPlanBytes = 64 << 20

// decodeSaved decodes a saved plan read at key, refusing what Kyku would
// not have written: too big, not a full plan (redacted, no config), for
// another environment.
func decodeSaved(key string, data []byte, env string) (*plan.Plan, error) {
	if len(data) > MaxSavedPlanBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than a saved plan may hold (%d)", key, len(data), MaxSavedPlanBytes)
	}
	p, err := plan.Decode(key, data)
	if err != nil {
		return nil, err
	}
	switch {
	case p.Redacted || p.Config == nil:
		return nil, fmt.Errorf("%s: a redacted plan without its configuration, which Kyku never saves", key)
	case p.Destroy:
		return nil, fmt.Errorf("%s: a destroy plan, which Kyku never saves for a pull request", key)
	case p.Environment != env:
		return nil, fmt.Errorf("%s: a plan for environment %q, not %q", key, p.Environment, env)
	}
	return p, nil
}

// applyReviewed is requirements 4 to 6: read the saved plan, plan again
// from the approved commit's configuration, compare, apply the fresh plan.
func (a *applier) applyReviewed(ctx context.Context, ws *Workspace) (*ApplyOutcome, error) {
	pr := a.pr
	key := SavedPlanKey(a.s.Project, a.s.Environment, pr.Number, pr.HeadSHA)
	data, err := ws.Backend.GetObject(ctx, key)
	if errors.Is(err, statemgr.ErrNotFound) {
		return a.refuse(ctx, refusal(RequireSavedPlan, noPlanText(a.request())))
	}
	if err != nil {
		return a.fail(ctx, fmt.Errorf("read saved plan %s: %w", key, err))
	}
	saved, decodeErr := decodeSaved(key, data, a.s.Environment)
	if a.d.Source == nil {
		return a.fail(ctx, errors.New("no source loader for the configuration at the approved commit"))
	}
	ref := a.planRef()
	headCfg, err := a.d.Source(ctx, ref)
	if err != nil {
		return a.fail(ctx, fmt.Errorf("load the configuration at %s: %w", sha7(ref), err))
	}
	// A Terraform root's count or for_each reading state or a data
	// source is expanded with them now, as the plan expanded it: what
	// changed since is a changed configuration, refused as one.
	a.expanded = headCfg.Pending != nil
	whole, err := ws.complete(ctx, headCfg)
	if err != nil {
		return a.fail(ctx, fmt.Errorf("load the configuration at %s: %w", sha7(ref), progress.SecretsOf(headCfg, nil).Add(ws.Engine.Secrets().Known()).Error(err)))
	}
	headCfg = whole
	headHash, headSecrets := headCfg.Hash(), headCfg.SecretsHash()
	// What is scrubbed from messages comes from the approved commit's
	// config and Kyku's own plan, never from the saved plan. Log masks are
	// only the values given from outside the files (secrets): masking
	// strings a pull request chose would let it hide parts of the log.
	// The engine's book adds what state and the providers hold as secret,
	// read each time: an apply learns the secrets it makes.
	hidden := progress.SecretsOf(headCfg, nil)
	for _, x := range headCfg.OutsideValues() {
		a.d.Mask(x)
	}

	var sh shown
	haveComment := false
	if a.s.CommentMode != ModeOff {
		if sh, haveComment, err = reviewedPlan(ctx, a.d.GitHub, a.s, pr.Number); err != nil {
			return a.fail(ctx, err)
		}
		if haveComment && sh.head != "" {
			r, err := a.commentRefusal(ctx, ws, sh.comment, sh.head)
			if err != nil {
				return a.fail(ctx, err)
			}
			if r != nil {
				r.Message += " " + a.request().replan()
				return a.refuse(ctx, r)
			}
		}
	}

	eng := ws.Engine
	known := func() progress.Secrets { return hidden.Add(eng.Secrets().Known()) }
	if saved != nil && len(saved.WriteOnly) > 0 {
		// A saved plan keeps no write-only values: compared once the
		// approved commit's configuration gives them again (a saved plan
		// it does not give them back to is not that commit's).
		if withWO, err := saved.WithWriteOnly(headCfg); err == nil {
			saved = withWO
		}
	}
	if saved != nil && prefixRE().MatchString(saved.Prefix) {
		// A first plan writes no state: the prefix it named cloud resources
		// with lives only in the saved plan. The digest shown in the
		// comment covers the cloud names, so a swapped prefix is refused.
		eng = eng.WithDeployPrefix(saved.Prefix)
	}
	opts := reviewPlan
	leased := leasedReview(eng, saved)
	if eng.Leased() {
		eng = eng.WithPR(pr.Number) // its leases name the pull request
	}
	if leased {
		opts.Targets, opts.Limited, opts.KeptOutputs = engine.ChangedResources(saved), true, saved.KeptOutputs
	}
	fresh, err := eng.PlanWith(ctx, headCfg, opts)
	if err != nil {
		return a.fail(ctx, fmt.Errorf("plan %s again at %s: %w", envName(a.s.Environment), sha7(ref), known().Error(err)))
	}
	if leased {
		// Limited to saved's changes, it is saved's plan: untargeted
		// when saved was, so that a plan destroying everything is
		// still one (destroyAllRefusal, the engine's guard).
		fresh.Targets, fresh.Exclude, fresh.KeptOutputs = saved.Targets, saved.Exclude, saved.KeptOutputs
	}
	hidden = hidden.Add(progress.SecretsOf(nil, fresh))
	digest, err := ChangesDigest(fresh)
	if err == nil && leased {
		digest, err = reviewedDigest(saved, fresh, digest)
	}
	if err != nil {
		return a.fail(ctx, err)
	}
	a.out.Digest = digest
	if r := a.mismatch(saved, decodeErr, headHash, headSecrets, fresh, digest, sh, haveComment); r != nil {
		return a.refuseWithPlan(ctx, r, fresh)
	}
	if r, err := a.policyGate(ctx, fresh); err != nil {
		return a.fail(ctx, err)
	} else if r != nil {
		return a.refuse(ctx, r)
	}
	if r := a.destroyAllRefusal(fresh); r != nil {
		return a.refuse(ctx, r)
	}

	started := a.d.Now()
	res, err := applyPlan(ctx, eng, headCfg, fresh, a.allowDestroyAll())
	if engine.IsStale(err) {
		return a.refuse(ctx, refusal(RequireCurrentState, staleText(a.request(), known().Scrub(err.Error()))))
	}
	if he := (*lease.HeldError)(nil); errors.As(err, &he) {
		return a.refuse(ctx, refusal(RequireCurrentState, known().Scrub(heldText(a.request(), he))))
	}
	if err != nil && (res == nil || !res.Applied) {
		return a.fail(ctx, fmt.Errorf("apply %s: %w", envName(a.s.Environment), known().Error(err)))
	}
	if err != nil {
		err = known().Error(err)
	}
	return a.finish(ctx, ws, res, err, started, known())
}

// planRef is the commit whose configuration is planned again and applied:
// the pull request's head, or the merge queue's commit.
func (a *applier) planRef() string {
	if a.req.Queue {
		return a.req.MergeSHA
	}
	return a.pr.HeadSHA
}

// applyPlan is the one place review asks the engine to apply: exactly p,
// a plan Kyku just made, refused by the engine (changing nothing) if the
// state's lineage or serial, or cfg's hash, moved on since.
func applyPlan(ctx context.Context, eng *engine.Engine, cfg *config.Config, p *plan.Plan, allowDestroyAll bool) (*engine.Result, error) {
	return eng.Apply(ctx, cfg, engine.ApplyOptions{AutoApprove: true, AllowDestroyAll: allowDestroyAll}, p)
}

// mismatch says why the fresh plan may not be applied (nil when it may).
func (a *applier) mismatch(saved *plan.Plan, decodeErr error, headHash, headSecrets string, fresh *plan.Plan, digest string, sh shown, haveComment bool) *Refusal {
	f := mismatchFacts{digest: digest}
	switch {
	case decodeErr != nil:
		f.why, f.detail = savedUnusable, decodeErr.Error()
		return a.mismatchRefusal(f)
	}
	// The published hash leaves the secrets out; SecretsHash has them.
	same := saved.Config.Hash() == saved.ConfigHash && saved.Config.SecretsHash() == saved.SecretsHash
	switch {
	case a.req.Queue && same && saved.ConfigHash != headHash:
		f.why = queueConfig
		return a.mismatchRefusal(f)
	case same && a.expanded && (saved.ConfigHash != headHash || saved.SecretsHash != headSecrets):
		f.why = expandedOther
		return a.mismatchRefusal(f)
	case !same || saved.ConfigHash != headHash || saved.SecretsHash != headSecrets:
		f.why = savedAltered
		return a.mismatchRefusal(f)
	}
	savedDigest, err := ChangesDigest(saved)
	if err != nil {
		f.why, f.detail = savedUnusable, err.Error()
		return a.mismatchRefusal(f)
	}
	if savedDigest != digest {
		f.savedDigest = savedDigest
		f.moved = movedText(saved.StateExists, fresh.StateExists, saved.Lineage, fresh.Lineage, saved.Serial, fresh.Serial)
		f.why = savedDiffers
		if f.moved != "" {
			f.why = savedStale
		}
		return a.mismatchRefusal(f)
	}
	if a.s.CommentMode == ModeOff {
		return nil
	}
	f.shownHead, f.shown = sh.head, sh.digest
	switch {
	case !haveComment:
		f.why = shownMissing
	case sh.head == "":
		f.why = shownNoPlan
	case sh.head != a.pr.HeadSHA:
		f.why = shownOtherHead
	case sh.digest != digest:
		f.why = shownOtherPlan
	default:
		return nil
	}
	return a.mismatchRefusal(f)
}

// mismatchRefusal is the refusal of a fresh plan that is not the reviewed
// one, saying how to re-plan.
func (a *applier) mismatchRefusal(f mismatchFacts) *Refusal {
	r := a.request()
	return refusal(RequireReviewedPlan, mismatchText(r, f)+" "+r.replan())
}

// refuseWithPlan refuses with r and shows the fresh plan for review.
func (a *applier) refuseWithPlan(ctx context.Context, r *Refusal, fresh *plan.Plan) (*ApplyOutcome, error) {
	a.out.Refused = r
	m := render.Meta{CommitSHA: a.pr.HeadSHA, Digest: a.out.Digest, RunURL: a.d.RunURL, Environment: a.s.Environment, Project: a.s.Project, ShowUnchanged: a.s.ShowUnchanged}
	err := a.answer(ctx, refusedWithPlanReply(a.s, r, fresh, m))
	a.react(ctx, ReactRefused)
	return a.out, err
}
