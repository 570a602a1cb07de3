package githubtest

import (
	"net/http"
	"strings"

	gh "github.com/google/go-github/v88/github"
)

// AddTeamMember makes user an active member of the team org/team (slug),
// as GET /orgs/{org}/teams/{team_slug}/memberships/{username} answers.
// Only tokens listed with SetTeamReaders (default: every token) can see
// teams; others get 404, as a workflow's GITHUB_TOKEN does.
func (s *Server) AddTeamMember(org, team, user string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.teams == nil {
		s.teams = map[string]map[string]bool{}
	}
	key := strings.ToLower(org + "/" + team)
	if s.teams[key] == nil {
		s.teams[key] = map[string]bool{}
	}
	s.teams[key][strings.ToLower(user)] = true
}

// SetTeamReaders limits which logins' tokens may read team memberships
// (nil: all of them).
func (s *Server) SetTeamReaders(logins ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.teamReaders = map[string]bool{}
	for _, l := range logins {
		s.teamReaders[strings.ToLower(l)] = true
	}
}

func (s *Server) teamRoutes(api func(string, handler)) {
	api("GET /orgs/{org}/teams/{team}/memberships/{user}", s.teamMembership)
}

func (s *Server) teamMembership(w http.ResponseWriter, r *http.Request, login string) {
	if s.teamReaders != nil && !s.teamReaders[strings.ToLower(login)] {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	members := s.teams[strings.ToLower(r.PathValue("org")+"/"+r.PathValue("team"))]
	if !members[strings.ToLower(r.PathValue("user"))] {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, &gh.Membership{State: gh.Ptr("active"), Role: gh.Ptr("member")})
}
