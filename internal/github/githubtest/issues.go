package githubtest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	gh "github.com/google/go-github/v88/github"
)

func (s *Server) issueRoutes(api func(string, handler)) {
	api("GET /repos/{owner}/{repo}/issues/{number}/comments", s.listComments)
	api("POST /repos/{owner}/{repo}/issues/{number}/comments", s.createComment)
	api("PATCH /repos/{owner}/{repo}/issues/comments/{id}", s.editComment)
	api("POST /repos/{owner}/{repo}/issues/comments/{id}/reactions", s.createReaction)
	api("GET /repos/{owner}/{repo}/issues", s.listIssues)
	api("GET /user", s.getUser)
	api("POST /repos/{owner}/{repo}/issues", s.createIssue)
	api("GET /repos/{owner}/{repo}/issues/{number}", s.getIssue)
	api("PATCH /repos/{owner}/{repo}/issues/{number}", s.editIssue)
}

func user(login string) *gh.User {
	typ := "User"
	if strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	return &gh.User{Login: gh.Ptr(login), Type: gh.Ptr(typ)}
}

// getUser answers GET /user like GitHub: the token's user, or 403 for an
// installation token (a bot account: the workflow's GITHUB_TOKEN, an App).
func (s *Server) getUser(w http.ResponseWriter, _ *http.Request, login string) {
	if strings.HasSuffix(login, "[bot]") {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	writeJSON(w, http.StatusOK, user(login))
}

func (s *Server) htmlURL(rp *repo, number int) string {
	kind := "issues"
	if rp.pulls[number] != nil {
		kind = "pull"
	}
	return fmt.Sprintf("%s/%s/%s/%d", s.URL, rp.fullName(), kind, number)
}

func (s *Server) commentJSON(rp *repo, c *Comment) *gh.IssueComment {
	return &gh.IssueComment{
		ID:        gh.Ptr(c.ID),
		NodeID:    gh.Ptr(nodeID(c.ID)),
		Body:      gh.Ptr(c.Body),
		User:      user(c.User),
		HTMLURL:   gh.Ptr(fmt.Sprintf("%s#issuecomment-%d", s.htmlURL(rp, c.Issue), c.ID)),
		IssueURL:  gh.Ptr(fmt.Sprintf("%srepos/%s/issues/%d", s.URL+BasePath, rp.fullName(), c.Issue)),
		CreatedAt: &gh.Timestamp{Time: c.CreatedAt},
		UpdatedAt: &gh.Timestamp{Time: c.UpdatedAt},
	}
}

func (s *Server) listComments(w http.ResponseWriter, r *http.Request, _ string) {
	rp, n := s.issueFor(w, r)
	if rp == nil {
		return
	}
	var out []*gh.IssueComment
	for _, c := range rp.comments {
		if c.Issue == int(n) {
			out = append(out, s.commentJSON(rp, c))
		}
	}
	writeJSON(w, http.StatusOK, paginate(w, r, out))
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request, login string) {
	rp, n := s.issueFor(w, r)
	if rp == nil {
		return
	}
	var in struct {
		Body *string `json:"body"`
	}
	if !decode(w, r, &in) {
		return
	}
	if in.Body == nil || *in.Body == "" {
		writeInvalid(w, "IssueComment", "body")
		return
	}
	now := s.now()
	c := &Comment{ID: s.id(), Issue: int(n), User: login, Body: *in.Body, CreatedAt: now, UpdatedAt: now}
	rp.comments = append(rp.comments, c)
	writeJSON(w, http.StatusCreated, s.commentJSON(rp, c))
}

func (rp *repo) comment(id int64) *Comment {
	for _, c := range rp.comments {
		if c.ID == id {
			return c
		}
	}
	return nil
}

func (s *Server) editComment(w http.ResponseWriter, r *http.Request, login string) {
	rp, c := s.commentFor(w, r)
	if c == nil {
		return
	}
	var in struct {
		Body *string `json:"body"`
	}
	if !decode(w, r, &in) {
		return
	}
	if in.Body == nil || *in.Body == "" {
		writeInvalid(w, "IssueComment", "body")
		return
	}
	s.edit(c, login, *in.Body)
	writeJSON(w, http.StatusOK, s.commentJSON(rp, c))
}

var reactionContents = []string{"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"}

func (s *Server) createReaction(w http.ResponseWriter, r *http.Request, login string) {
	_, c := s.commentFor(w, r)
	if c == nil {
		return
	}
	var in struct {
		Content string `json:"content"`
	}
	if !decode(w, r, &in) {
		return
	}
	if !slices.Contains(reactionContents, in.Content) {
		writeInvalid(w, "Reaction", "content")
		return
	}
	out := &gh.Reaction{ID: gh.Ptr(s.id()), User: user(login), Content: gh.Ptr(in.Content)}
	rx := Reaction{User: login, Content: in.Content}
	if slices.Contains(c.Reactions, rx) {
		writeJSON(w, http.StatusOK, out)
		return
	}
	c.Reactions = append(c.Reactions, rx)
	writeJSON(w, http.StatusCreated, out)
}

func (s *Server) issueJSON(rp *repo, is *Issue) *gh.Issue {
	var labels []*gh.Label
	for _, l := range is.Labels {
		labels = append(labels, &gh.Label{Name: gh.Ptr(l)})
	}
	out := &gh.Issue{
		Number:  gh.Ptr(is.Number),
		Title:   gh.Ptr(is.Title),
		Body:    gh.Ptr(is.Body),
		State:   gh.Ptr(is.State),
		User:    user(is.User),
		Labels:  labels,
		HTMLURL: gh.Ptr(s.htmlURL(rp, is.Number)),
	}
	if is.StateReason != "" {
		out.StateReason = gh.Ptr(is.StateReason)
	}
	return out
}

func (s *Server) pullIssueJSON(rp *repo, pr *PullRequest) *gh.Issue {
	return &gh.Issue{
		Number:           gh.Ptr(pr.Number),
		Title:            gh.Ptr(pr.Title),
		State:            gh.Ptr(pr.State),
		User:             user(pr.User),
		HTMLURL:          gh.Ptr(s.htmlURL(rp, pr.Number)),
		PullRequestLinks: &gh.PullRequestLinks{HTMLURL: gh.Ptr(s.htmlURL(rp, pr.Number))},
	}
}

// listIssues lists issues and pull requests, newest first, filtered by
// state (default open) and labels (all must match), as GitHub does.
func (s *Server) listIssues(w http.ResponseWriter, r *http.Request, _ string) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return
	}
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	var want []string
	if l := q.Get("labels"); l != "" {
		want = strings.Split(l, ",")
	}
	numbers := append(sortedKeys(rp.issues), sortedKeys(rp.pulls)...)
	slices.Sort(numbers)
	slices.Reverse(numbers)
	var out []*gh.Issue
	for _, n := range numbers {
		if is := rp.issues[n]; is != nil {
			if (state == "all" || is.State == state) && hasAll(is.Labels, want) {
				out = append(out, s.issueJSON(rp, is))
			}
			continue
		}
		pr := rp.pulls[n]
		if (state == "all" || pr.State == state) && len(want) == 0 {
			out = append(out, s.pullIssueJSON(rp, pr))
		}
	}
	writeJSON(w, http.StatusOK, paginate(w, r, out))
}

func hasAll(have, want []string) bool {
	for _, l := range want {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, strings.TrimSpace(l)) }) {
			return false
		}
	}
	return true
}

type issueRequest struct {
	Title       *string   `json:"title"`
	Body        *string   `json:"body"`
	State       *string   `json:"state"`
	StateReason *string   `json:"state_reason"`
	Labels      *[]string `json:"labels"`
}

func (s *Server) createIssue(w http.ResponseWriter, r *http.Request, login string) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return
	}
	var in issueRequest
	if !decode(w, r, &in) {
		return
	}
	if in.Title == nil || *in.Title == "" {
		writeInvalid(w, "Issue", "title")
		return
	}
	is := Issue{Title: *in.Title, User: login}
	if in.Body != nil {
		is.Body = *in.Body
	}
	if in.Labels != nil {
		is.Labels = *in.Labels
	}
	n := rp.addIssue(is)
	writeJSON(w, http.StatusCreated, s.issueJSON(rp, rp.issues[n]))
}

func (s *Server) getIssue(w http.ResponseWriter, r *http.Request, _ string) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return
	}
	n, ok := pathInt(w, r, "number")
	if !ok {
		return
	}
	if is := rp.issues[int(n)]; is != nil {
		writeJSON(w, http.StatusOK, s.issueJSON(rp, is))
		return
	}
	if pr := rp.pulls[int(n)]; pr != nil {
		writeJSON(w, http.StatusOK, s.pullIssueJSON(rp, pr))
		return
	}
	writeError(w, http.StatusNotFound, "Not Found")
}

func (s *Server) editIssue(w http.ResponseWriter, r *http.Request, _ string) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return
	}
	n, ok := pathInt(w, r, "number")
	if !ok {
		return
	}
	is := rp.issues[int(n)]
	if is == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	var in issueRequest
	if !decode(w, r, &in) {
		return
	}
	if in.State != nil && *in.State != "open" && *in.State != "closed" {
		writeInvalid(w, "Issue", "state")
		return
	}
	if in.Title != nil {
		if *in.Title == "" {
			writeInvalid(w, "Issue", "title")
			return
		}
		is.Title = *in.Title
	}
	if in.Body != nil {
		is.Body = *in.Body
	}
	if in.State != nil {
		is.State = *in.State
		is.StateReason = ""
		if is.State == "closed" {
			is.StateReason = "completed"
		}
	}
	if in.StateReason != nil && is.State == "closed" {
		is.StateReason = *in.StateReason
	}
	if in.Labels != nil {
		is.Labels = slices.Clone(*in.Labels)
		for _, l := range is.Labels {
			rp.labels[l] = true
		}
	}
	writeJSON(w, http.StatusOK, s.issueJSON(rp, is))
}

// EditIssue edits issue number's body as login would through the API (a
// writer can edit any issue; the fake keeps no record of who edited an
// issue, so login only documents the test).
func (s *Server) EditIssue(fullName string, number int, login, body string) {
	_ = login
	s.mu.Lock()
	defer s.mu.Unlock()
	if is := s.repoLocked(fullName, true).issues[number]; is != nil {
		is.Body = body
	}
}

// commentFor finds the repository and the issue comment {id} of a request,
// answering 404 (and returning nil) when either is missing.
func (s *Server) commentFor(w http.ResponseWriter, r *http.Request) (*repo, *Comment) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return nil, nil
	}
	id, ok := pathInt(w, r, "id")
	if !ok {
		return nil, nil
	}
	c := rp.comment(id)
	if c == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return nil, nil
	}
	return rp, c
}

// issueFor finds the repository and the issue or pull request {number} of
// a request, answering 404 (and returning nil) when either is missing.
func (s *Server) issueFor(w http.ResponseWriter, r *http.Request) (*repo, int64) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return nil, 0
	}
	n, ok := pathInt(w, r, "number")
	if !ok {
		return nil, 0
	}
	if rp.pulls[int(n)] == nil && rp.issues[int(n)] == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return nil, 0
	}
	return rp, n
}
