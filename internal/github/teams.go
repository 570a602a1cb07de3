package github

import (
	"context"
	"errors"
	"strings"
)

// TeamMember reports whether user is an active member of the team
// org/team (GET /orgs/{org}/teams/{team_slug}/memberships/{username}).
// GitHub answers 404 both for "not a member" and for a team the token
// cannot see (a workflow's GITHUB_TOKEN sees no team): either is false,
// so a rule that needs membership fails closed. A pending invitation is
// not membership.
func (r *Repo) TeamMember(ctx context.Context, org, team, user string) (bool, error) {
	m, resp, err := r.client.Teams.GetTeamMembershipBySlug(ctx, org, strings.ToLower(team), user)
	if err := r.done(resp, err, "get the membership of %s in team %s/%s", user, org, team); err != nil {
		if errors.Is(err, ErrNotFound) {
			return false, nil
		}
		return false, err
	}
	return m.GetState() == "active", nil
}
