package githubtest

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	jwt "github.com/golang-jwt/jwt/v4"
	gh "github.com/google/go-github/v88/github"
)

// installation is an App installation: an account and the repositories it
// was granted.
type installation struct {
	id      int64
	account string
	repos   []string // full names, in the order given
}

// AddInstallation installs the App (see SetApp) on account with access to
// repos ("owner/name", created on demand with default branch "main" unless
// AddRepo seeded them). GET /app/installations lists it (App JWT) and
// GET /installation/repositories lists repos for its installation tokens.
// Calling it again for the same id replaces the installation.
func (s *Server) AddInstallation(id int64, account string, repos ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range repos {
		s.repoLocked(r, true)
	}
	in := &installation{id: id, account: account, repos: slices.Clone(repos)}
	for i, old := range s.installs {
		if old.id == id {
			s.installs[i] = in
			return
		}
	}
	s.installs = append(s.installs, in)
}

// SetArchived marks a repository archived (or not), as the repository
// listings show it.
func (s *Server) SetArchived(fullName string, archived bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repoLocked(fullName, true).archived = archived
}

func (s *Server) appRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET "+BasePath+"app/installations", s.locked(s.listInstallations))
	mux.HandleFunc("GET "+BasePath+"app", s.locked(s.getApp))
	mux.Handle("GET "+strings.TrimSuffix(BasePath, "/")+"/installation/repositories", s.authed(s.listInstallationRepos))
}

// appJWT checks an App JWT (RS256, signed by the key given to SetApp,
// iss = the App ID, unexpired, at most 10 minutes long), answering 401 when
// it is not one.
func (s *Server) appJWT(w http.ResponseWriter, r *http.Request) bool {
	scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "bearer") || s.appKey == nil {
		writeError(w, http.StatusUnauthorized, "A JSON web token could not be decoded")
		return false
	}
	var claims jwt.RegisteredClaims
	parser := jwt.NewParser(jwt.WithValidMethods([]string{"RS256"}), jwt.WithoutClaimsValidation())
	_, err := parser.ParseWithClaims(tok, &claims, func(*jwt.Token) (any, error) { return s.appKey, nil })
	now := s.now()
	switch {
	case err != nil:
		writeError(w, http.StatusUnauthorized, "A JSON web token could not be decoded")
		return false
	case claims.ExpiresAt == nil || !claims.ExpiresAt.After(now),
		claims.IssuedAt == nil || claims.IssuedAt.After(now.Add(time.Minute)),
		claims.ExpiresAt.Sub(claims.IssuedAt.Time) > 10*time.Minute:
		writeError(w, http.StatusUnauthorized, "'Expiration time' claim ('exp') is invalid")
		return false
	case claims.Issuer != strconv.FormatInt(s.appID, 10):
		writeError(w, http.StatusUnauthorized, "'Issuer' claim ('iss') must be an Integer")
		return false
	}
	return true
}

// getApp answers GET /app for the App's JWT: its ID and slug (the login
// given to SetApp without "[bot]").
func (s *Server) getApp(w http.ResponseWriter, r *http.Request) {
	if !s.appJWT(w, r) {
		return
	}
	slug := strings.TrimSuffix(s.appLogin, "[bot]")
	writeJSON(w, http.StatusOK, &gh.App{ID: gh.Ptr(s.appID), Slug: gh.Ptr(slug), Name: gh.Ptr(slug)})
}

// listInstallations answers GET /app/installations for the App's JWT.
func (s *Server) listInstallations(w http.ResponseWriter, r *http.Request) {
	if !s.appJWT(w, r) {
		return
	}
	out := make([]*gh.Installation, 0, len(s.installs))
	for _, in := range s.installs {
		out = append(out, &gh.Installation{
			ID:                  gh.Ptr(in.id),
			AppID:               gh.Ptr(s.appID),
			Account:             user(in.account),
			RepositorySelection: gh.Ptr("selected"),
		})
	}
	writeJSON(w, http.StatusOK, paginate(w, r, out))
}

// listInstallationRepos answers GET /installation/repositories for an
// installation token: the repositories of the token's installation.
func (s *Server) listInstallationRepos(w http.ResponseWriter, r *http.Request, _ string) {
	_, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	id, ok := s.tokenInstall[tok]
	if !ok {
		writeError(w, http.StatusForbidden, "This endpoint can only be accessed with an installation token")
		return
	}
	var repos []*gh.Repository
	for _, in := range s.installs {
		if in.id != id {
			continue
		}
		for _, name := range in.repos {
			rp := s.repoLocked(name, true)
			j := s.repoJSON(rp.fullName(), false)
			j.DefaultBranch = gh.Ptr(rp.defaultBranch)
			j.Archived = gh.Ptr(rp.archived)
			repos = append(repos, j)
		}
	}
	page := paginate(w, r, repos)
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(repos), "repositories": page})
}
