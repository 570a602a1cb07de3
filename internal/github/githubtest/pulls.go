package githubtest

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"

	gh "github.com/google/go-github/v88/github"
)

func (s *Server) pullRoutes(api func(string, handler)) {
	api("GET /repos/{owner}/{repo}/pulls/{number}", s.getPull)
	api("GET /repos/{owner}/{repo}/pulls/{number}/reviews", s.listReviews)
	api("GET /repos/{owner}/{repo}/pulls/{number}/files", s.listFiles)
	api("GET /repos/{owner}/{repo}/pulls/{number}/commits", s.listCommits)
	api("GET /repos/{owner}/{repo}/commits/{sha}/pulls", s.commitPulls)
	api("GET /repos/{owner}/{repo}/commits/{sha}", s.getCommit)
	api("GET /repos/{owner}/{repo}/collaborators/{user}/permission", s.permission)
}

func (s *Server) repoJSON(fullName string, fork bool) *gh.Repository {
	owner, name, _ := strings.Cut(fullName, "/")
	j := &gh.Repository{
		Name:     gh.Ptr(name),
		FullName: gh.Ptr(fullName),
		Owner:    user(owner),
		Fork:     gh.Ptr(fork),
		HTMLURL:  gh.Ptr(s.URL + "/" + fullName),
	}
	if rp := s.repos[strings.ToLower(fullName)]; rp != nil {
		j.ID = gh.Ptr(rp.id)
		if !rp.created.IsZero() {
			j.CreatedAt = &gh.Timestamp{Time: rp.created}
		}
	}
	return j
}

func (s *Server) pullJSON(rp *repo, pr *PullRequest) *gh.PullRequest {
	headRepo := pr.HeadRepo
	if headRepo == "" {
		headRepo = rp.fullName()
	}
	fork := !strings.EqualFold(headRepo, rp.fullName())
	base := s.repoJSON(rp.fullName(), false)
	base.DefaultBranch = gh.Ptr(rp.defaultBranch)
	headOwner, _, _ := strings.Cut(headRepo, "/")
	return &gh.PullRequest{
		Number:  gh.Ptr(pr.Number),
		Title:   gh.Ptr(pr.Title),
		State:   gh.Ptr(pr.State),
		Merged:  gh.Ptr(pr.Merged),
		Draft:   gh.Ptr(pr.Draft),
		User:    user(pr.User),
		HTMLURL: gh.Ptr(s.htmlURL(rp, pr.Number)),
		Head: &gh.PullRequestBranch{
			Label: gh.Ptr(headOwner + ":" + pr.HeadRef),
			Ref:   gh.Ptr(pr.HeadRef),
			SHA:   gh.Ptr(pr.HeadSHA),
			Repo:  s.repoJSON(headRepo, fork),
		},
		Base: &gh.PullRequestBranch{
			Label: gh.Ptr(rp.owner + ":" + pr.BaseRef),
			Ref:   gh.Ptr(pr.BaseRef),
			Repo:  base,
		},
	}
}

func (s *Server) pullFor(w http.ResponseWriter, r *http.Request) (*repo, *PullRequest) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return nil, nil
	}
	n, ok := pathInt(w, r, "number")
	if !ok {
		return nil, nil
	}
	pr := rp.pulls[int(n)]
	if pr == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return nil, nil
	}
	return rp, pr
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request, _ string) {
	if rp, pr := s.pullFor(w, r); pr != nil {
		writeJSON(w, http.StatusOK, s.pullJSON(rp, pr))
	}
}

// listReviews lists reviews in chronological order, as GitHub does.
func (s *Server) listReviews(w http.ResponseWriter, r *http.Request, _ string) {
	rp, pr := s.pullFor(w, r)
	if pr == nil {
		return
	}
	out := []*gh.PullRequestReview{}
	for _, rv := range rp.reviews[pr.Number] {
		u := user(rv.User)
		if rv.UserType != "" {
			u.Type = gh.Ptr(rv.UserType)
		}
		j := &gh.PullRequestReview{
			ID:       gh.Ptr(rv.ID),
			User:     u,
			State:    gh.Ptr(rv.State),
			CommitID: gh.Ptr(rv.CommitID),
			HTMLURL:  gh.Ptr(fmt.Sprintf("%s#pullrequestreview-%d", s.htmlURL(rp, pr.Number), rv.ID)),
		}
		if rv.State != "PENDING" {
			j.SubmittedAt = &gh.Timestamp{Time: rv.SubmittedAt}
		}
		out = append(out, j)
	}
	writeJSON(w, http.StatusOK, paginate(w, r, out))
}

func (s *Server) listFiles(w http.ResponseWriter, r *http.Request, _ string) {
	_, pr := s.pullFor(w, r)
	if pr == nil {
		return
	}
	out := []*gh.CommitFile{}
	for _, f := range pr.Files {
		out = append(out, &gh.CommitFile{Filename: gh.Ptr(f), Status: gh.Ptr("modified")})
	}
	writeJSON(w, http.StatusOK, paginate(w, r, out))
}

// listCommits lists a pull request's commits, oldest first, at most 250
// (GitHub's limit for this endpoint), with the accounts linked to each
// commit's author and committer (null when none).
func (s *Server) listCommits(w http.ResponseWriter, r *http.Request, _ string) {
	_, pr := s.pullFor(w, r)
	if pr == nil {
		return
	}
	out := []*gh.RepositoryCommit{}
	for _, c := range pr.Commits[:min(len(pr.Commits), 250)] {
		rc := &gh.RepositoryCommit{SHA: gh.Ptr(c.SHA), Commit: &gh.Commit{Message: gh.Ptr("change")}}
		if c.Author != "" {
			rc.Author = user(c.Author)
		}
		if c.Committer != "" {
			rc.Committer = user(c.Committer)
		}
		out = append(out, rc)
	}
	writeJSON(w, http.StatusOK, paginate(w, r, out))
}

// getCommit answers a seeded commit: its SHA, parents, message and author.
func (s *Server) getCommit(w http.ResponseWriter, r *http.Request, _ string) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return
	}
	sha := r.PathValue("sha")
	if ref, ok := rp.refs[sha]; ok {
		sha = ref
	}
	c, ok := rp.commits[sha]
	if !ok {
		// A branch or SHA with files is a commit too, without parents.
		files, at := rp.filesAt(r.PathValue("sha"))
		if files == nil {
			writeError(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+r.PathValue("sha"))
			return
		}
		c = GitCommit{SHA: syntheticSHA(rp, at)}
	}
	out := &gh.RepositoryCommit{
		SHA:     gh.Ptr(c.SHA),
		HTMLURL: gh.Ptr(fmt.Sprintf("%s/%s/commit/%s", s.URL, rp.fullName(), c.SHA)),
		Commit: &gh.Commit{
			Message: gh.Ptr(c.Message),
			Author:  &gh.CommitAuthor{Name: gh.Ptr("A U Thor"), Date: &gh.Timestamp{Time: c.AuthorDate}},
		},
	}
	for _, p := range c.Parents {
		out.Parents = append(out.Parents, &gh.Commit{SHA: gh.Ptr(p)})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) commitPulls(w http.ResponseWriter, r *http.Request, _ string) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return
	}
	out := []*gh.PullRequest{}
	for _, n := range rp.commitPulls[r.PathValue("sha")] {
		if pr := rp.pulls[n]; pr != nil {
			out = append(out, s.pullJSON(rp, pr))
		}
	}
	writeJSON(w, http.StatusOK, paginate(w, r, out))
}

// basePermission maps a role to the legacy permission field: maintain
// reads as write, triage as read, custom roles as read.
func basePermission(role string) string {
	switch role {
	case "admin", "write", "read", "none":
		return role
	case "maintain":
		return "write"
	}
	return "read"
}

// permission answers like GitHub: permission (admin, write, read, none) and
// role_name (admin, maintain, write, triage, read, or a custom role).
func (s *Server) permission(w http.ResponseWriter, r *http.Request, _ string) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return
	}
	login := r.PathValue("user")
	role, ok := rp.perms[strings.ToLower(login)]
	if !ok {
		role = "none"
	}
	roleName := role
	if role == "none" {
		roleName = ""
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"permission": basePermission(role),
		"role_name":  roleName,
		"user":       user(login),
	})
}

var shaRE = regexp.MustCompile(`^[0-9a-f]{40}$`)
