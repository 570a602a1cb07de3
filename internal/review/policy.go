package review

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/policy"
	"github.com/kyku/action/internal/render"
)

// PolicyCheckName is the name of the check run of a policy check:
// "kyku policy (<project>/<env>)", empty parts dropped ("default" when
// both are), as the bot names its plan check runs.
func PolicyCheckName(project, env string) string {
	var parts []string
	if project != "" {
		parts = append(parts, project)
	}
	if env != "" {
		parts = append(parts, env)
	}
	label := strings.Join(parts, "/")
	if label == "" {
		label = "default"
	}
	return "kyku policy (" + label + ")"
}

// PolicyCheck is the check run of a plan's policy check, named by
// PolicyCheckName and completed: failure when the policies deny the plan
// or cannot be evaluated, success otherwise (warnings never fail it). ok
// is false when the plan had no policy check.
func (o *PlanOutcome) PolicyCheck(s Settings, m render.Meta) (check github.CheckRun, ok bool) {
	if o == nil || o.Policy == nil {
		return github.CheckRun{}, false
	}
	m.Environment, m.Project = s.Environment, s.Project
	check = github.CheckRun{Name: PolicyCheckName(s.Project, s.Environment), Status: github.CheckCompleted, Conclusion: github.CheckSuccess}
	check.Title, check.Summary = render.PolicyCheck(*o.Policy, m)
	if o.Policy.Blocks() {
		check.Conclusion = github.CheckFailure
	}
	return check, true
}

// policyReport evaluates the policies that judge this event (Deps.Policies)
// on p. nil when there are none. Policies that cannot be read or
// evaluated give a report with Error set, which blocks like a denial.
func policyReport(ctx context.Context, d Deps, s Settings, p *plan.Plan) *render.PolicyReport {
	if d.Policies == nil {
		return nil
	}
	set, err := d.Policies(ctx)
	if err != nil {
		return &render.PolicyReport{Error: "Kyku could not read the policies: " + err.Error()}
	}
	if set.Empty() {
		return nil
	}
	rep := &render.PolicyReport{Files: set.Files(), Ref: set.Ref}
	in, err := policy.NewInput(p)
	if err != nil {
		rep.Error = err.Error()
		return rep
	}
	res, err := set.Evaluate(ctx, in, s.PolicyTimeout)
	if err != nil {
		var ds diag.Diagnostics
		if errors.As(err, &ds) {
			lines := make([]string, len(ds))
			for i, x := range ds {
				lines[i] = x.String()
			}
			rep.Error = strings.Join(lines, "\n")
		} else {
			rep.Error = err.Error()
		}
		return rep
	}
	rep.Deny, rep.Warn, rep.MoreDeny, rep.MoreWarn = res.Deny, res.Warn, res.MoreDeny, res.MoreWarn
	return rep
}

// policyGate is the policy requirement of an apply: the fresh plan's
// policy check passes, or a policy owner's approval of the head counts.
// It returns the refusal (nil when the apply may go on).
func (a *applier) policyGate(ctx context.Context, fresh *plan.Plan) (*Refusal, error) {
	rep := policyReport(ctx, a.d, a.s, fresh)
	a.out.Policy = rep
	if !rep.Blocks() {
		return nil, nil
	}
	owners, err := policyOwnersApproving(ctx, a.d.GitHub, a.s.PolicyOwners, a.ap.counted)
	if err != nil {
		return nil, err
	}
	if len(owners) > 0 {
		a.out.PolicyOverriddenBy = owners
		return nil, nil
	}
	return refusal(RequirePolicy, policyText(a.request(), policyBlock{err: rep.Error, deny: rep.Deny, more: rep.MoreDeny}, a.ap)), nil
}

// policyOwnersApproving are the counted approvers who are policy owners:
// listed by login, or active members of a listed org/team.
func policyOwnersApproving(ctx context.Context, gh Reviews, owners, counted []string) ([]string, error) {
	var out []string
	for _, who := range counted {
		for _, o := range owners {
			org, team, isTeam := strings.Cut(o, "/")
			if !isTeam {
				if strings.EqualFold(o, who) {
					out = append(out, who)
					break
				}
				continue
			}
			member, err := gh.TeamMember(ctx, org, team, who)
			if err != nil {
				return nil, fmt.Errorf("check whether %s is in the policy owners' team %s: %w", who, o, err)
			}
			if member {
				out = append(out, who)
				break
			}
		}
	}
	return out, nil
}

// auditPolicy is what the audit record says about the policy check.
func (a *applier) auditPolicy() *AuditPolicy {
	rep := a.out.Policy
	if rep == nil {
		return nil
	}
	return &AuditPolicy{
		Ref: rep.Ref, Files: append([]string{}, rep.Files...), Denied: rep.Deny, Warnings: rep.Warn,
		Error: rep.Error, OverriddenBy: a.out.PolicyOverriddenBy,
	}
}
