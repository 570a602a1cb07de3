package githubtest

import (
	"archive/tar"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	gh "github.com/google/go-github/v88/github"
)

// Limits GitHub enforces on check runs, which the fake enforces with a 422.
const (
	maxCheckName   = 255
	maxCheckOutput = 65535
)

func (s *Server) repoRoutes(api func(string, handler)) {
	api("GET /repos/{owner}/{repo}", s.getRepo)
	api("GET /repos/{owner}/{repo}/contents/{path...}", s.contents)
	api("GET /repos/{owner}/{repo}/tarball", s.tarball)
	api("GET /repos/{owner}/{repo}/tarball/{ref...}", s.tarball)
	api("POST /repos/{owner}/{repo}/check-runs", s.createCheckRun)
	api("PATCH /repos/{owner}/{repo}/check-runs/{id}", s.updateCheckRun)
	api("GET /repos/{owner}/{repo}/commits/{sha}/check-suites", s.listCheckSuites)
	api("GET /repos/{owner}/{repo}/issues/{number}/events", s.listIssueEvents)
	api("GET /repos/{owner}/{repo}/activity", s.listActivity)
}

func (s *Server) getRepo(w http.ResponseWriter, r *http.Request, _ string) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return
	}
	j := s.repoJSON(rp.fullName(), false)
	j.DefaultBranch = gh.Ptr(rp.defaultBranch)
	writeJSON(w, http.StatusOK, j)
}

// filesAt returns the files at a ref, trying the ref itself, the SHA it
// names, and the branches that name it; and the SHA to show for it.
func (rp *repo) filesAt(ref string) (map[string][]byte, string) {
	if ref == "" {
		ref = rp.defaultBranch
	}
	sha := ref
	if s, ok := rp.refs[ref]; ok {
		sha = s
	}
	if f := rp.files[ref]; f != nil {
		return f, sha
	}
	if f := rp.files[sha]; f != nil {
		return f, sha
	}
	for branch, s := range rp.refs {
		if s == ref && rp.files[branch] != nil {
			return rp.files[branch], sha
		}
	}
	return nil, sha
}

func (s *Server) contents(w http.ResponseWriter, r *http.Request, _ string) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return
	}
	files, _ := rp.filesAt(r.URL.Query().Get("ref"))
	p := strings.Trim(r.PathValue("path"), "/")
	if data, ok := files[p]; ok {
		writeJSON(w, http.StatusOK, &gh.RepositoryContent{
			Type:     gh.Ptr("file"),
			Name:     gh.Ptr(path.Base(p)),
			Path:     gh.Ptr(p),
			Size:     gh.Ptr(len(data)),
			Encoding: gh.Ptr("base64"),
			Content:  gh.Ptr(base64.StdEncoding.EncodeToString(data)),
		})
		return
	}
	prefix := p + "/"
	if p == "" {
		prefix = ""
	}
	seen := map[string]bool{}
	var out []*gh.RepositoryContent
	for _, name := range slices.Sorted(maps.Keys(files)) {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		child, _, isDir := strings.Cut(rest, "/")
		if seen[child] {
			continue
		}
		seen[child] = true
		typ := "file"
		if isDir {
			typ = "dir"
		}
		out = append(out, &gh.RepositoryContent{Type: gh.Ptr(typ), Name: gh.Ptr(child), Path: gh.Ptr(prefix + child)})
	}
	if len(out) == 0 {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// tarball answers like GitHub: a 302 to a one-off codeload URL that needs
// no Authorization header.
func (s *Server) tarball(w http.ResponseWriter, r *http.Request, _ string) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return
	}
	ref := r.PathValue("ref")
	if files, _ := rp.filesAt(ref); files == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	token := "ar" + strconv.FormatInt(s.id(), 10)
	s.archives[token] = archiveRef{repo: rp.fullName(), ref: ref}
	http.Redirect(w, r, s.URL+"/_codeload/"+token, http.StatusFound)
}

func (s *Server) codeload(w http.ResponseWriter, r *http.Request) {
	a, ok := s.archives[r.PathValue("token")]
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	rp := s.repoLocked(a.repo, false)
	files, sha := rp.filesAt(a.ref)
	short := sha[:min(7, len(sha))]
	top := fmt.Sprintf("%s-%s-%s/", rp.owner, rp.name, short)
	w.Header().Set("Content-Type", "application/x-gzip")
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	mod := s.now().Truncate(time.Second)
	_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header", PAXRecords: map[string]string{"comment": sha}, Format: tar.FormatPAX})
	_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: top, Mode: 0o775, ModTime: mod})
	dirs := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		for d := path.Dir(name); d != "."; d = path.Dir(d) {
			if !dirs[d] {
				dirs[d] = true
				_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: top + d + "/", Mode: 0o775, ModTime: mod})
			}
		}
		data := files[name]
		_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: top + name, Mode: 0o664, Size: int64(len(data)), ModTime: mod})
		_, _ = tw.Write(data)
	}
	_ = tw.Close()
	_ = zw.Close()
}

type checkRunRequest struct {
	Name       *string `json:"name"`
	HeadSHA    *string `json:"head_sha"`
	Status     *string `json:"status"`
	Conclusion *string `json:"conclusion"`
	Output     *struct {
		Title   *string `json:"title"`
		Summary *string `json:"summary"`
		Text    *string `json:"text"`
	} `json:"output"`
	DetailsURL *string `json:"details_url"`
	ExternalID *string `json:"external_id"`
}

// apply validates the request like GitHub and copies it into c; it returns
// the invalid field, if any.
func (in *checkRunRequest) apply(c *CheckRun) string {
	if in.Name != nil {
		if *in.Name == "" || len([]rune(*in.Name)) > maxCheckName {
			return "name"
		}
		c.Name = *in.Name
	}
	if in.Status != nil {
		if !slices.Contains([]string{"queued", "in_progress", "completed"}, *in.Status) {
			return "status"
		}
		c.Status = *in.Status
	}
	if in.Conclusion != nil {
		c.Conclusion, c.Status = *in.Conclusion, "completed"
	}
	if c.Status == "completed" && c.Conclusion == "" {
		return "conclusion"
	}
	if in.DetailsURL != nil {
		c.DetailsURL = *in.DetailsURL
	}
	if in.ExternalID != nil {
		c.ExternalID = *in.ExternalID
	}
	if o := in.Output; o != nil {
		if o.Title == nil || o.Summary == nil {
			return "output"
		}
		c.Title, c.Summary = *o.Title, *o.Summary
		c.Text = ""
		if o.Text != nil {
			c.Text = *o.Text
		}
		if len([]rune(c.Summary)) > maxCheckOutput {
			return "output.summary"
		}
		if len([]rune(c.Text)) > maxCheckOutput {
			return "output.text"
		}
	}
	return ""
}

func checkRunJSON(c *CheckRun) *gh.CheckRun {
	out := &gh.CheckRun{
		ID:      gh.Ptr(c.ID),
		Name:    gh.Ptr(c.Name),
		HeadSHA: gh.Ptr(c.HeadSHA),
		Status:  gh.Ptr(c.Status),
		Output:  &gh.CheckRunOutput{Title: gh.Ptr(c.Title), Summary: gh.Ptr(c.Summary), Text: gh.Ptr(c.Text)},
	}
	if c.DetailsURL != "" {
		out.DetailsURL = gh.Ptr(c.DetailsURL)
	}
	if c.ExternalID != "" {
		out.ExternalID = gh.Ptr(c.ExternalID)
	}
	if c.Conclusion != "" {
		out.Conclusion = gh.Ptr(c.Conclusion)
	}
	return out
}

func (s *Server) createCheckRun(w http.ResponseWriter, r *http.Request, login string) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return
	}
	if s.checksDenied[strings.ToLower(login)] {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	var in checkRunRequest
	if !decode(w, r, &in) {
		return
	}
	if in.Name == nil {
		writeInvalid(w, "CheckRun", "name")
		return
	}
	if in.HeadSHA == nil || *in.HeadSHA == "" {
		writeInvalid(w, "CheckRun", "head_sha")
		return
	}
	c := &CheckRun{HeadSHA: *in.HeadSHA, Status: "queued"}
	if field := in.apply(c); field != "" {
		writeInvalid(w, "CheckRun", field)
		return
	}
	c.ID = s.id()
	rp.checkRuns = append(rp.checkRuns, c)
	writeJSON(w, http.StatusCreated, checkRunJSON(c))
}

func (s *Server) updateCheckRun(w http.ResponseWriter, r *http.Request, _ string) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return
	}
	id, ok := pathInt(w, r, "id")
	if !ok {
		return
	}
	i := slices.IndexFunc(rp.checkRuns, func(c *CheckRun) bool { return c.ID == id })
	if i < 0 {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	var in checkRunRequest
	if !decode(w, r, &in) {
		return
	}
	c := *rp.checkRuns[i]
	if field := in.apply(&c); field != "" {
		writeInvalid(w, "CheckRun", field)
		return
	}
	*rp.checkRuns[i] = c
	writeJSON(w, http.StatusOK, checkRunJSON(&c))
}

// accessToken exchanges an App JWT (RS256, signed by the key given to
// SetApp, iss = the App ID, unexpired) for an installation token.
func (s *Server) accessToken(w http.ResponseWriter, r *http.Request) {
	if !s.appJWT(w, r) {
		return
	}
	id, ok := pathInt(w, r, "id")
	if !ok {
		return
	}
	now := s.now()
	token := fmt.Sprintf("ghs_inst%d_%d", id, s.id())
	s.tokens[token] = s.appLogin
	s.tokenInstall[token] = id
	s.issued = append(s.issued, token)
	writeJSON(w, http.StatusCreated, map[string]any{
		"token":                token,
		"expires_at":           now.Add(time.Hour).UTC().Format(time.RFC3339),
		"permissions":          map[string]string{"contents": "read", "pull_requests": "write", "issues": "write", "checks": "write"},
		"repository_selection": "all",
	})
}

// listCheckSuites is GET …/commits/{ref}/check-suites: the suites on a
// commit (a full SHA here), oldest first, paginated, in GitHub's
// envelope {"total_count", "check_suites"}.
func (s *Server) listCheckSuites(w http.ResponseWriter, r *http.Request, login string) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return
	}
	if s.checkReadsDenied[strings.ToLower(login)] {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	sha := r.PathValue("sha")
	var all []*gh.CheckSuite
	for i, cs := range rp.checkSuites {
		if cs.HeadSHA != sha {
			continue
		}
		all = append(all, &gh.CheckSuite{
			ID: gh.Ptr(int64(i + 1)), HeadSHA: gh.Ptr(cs.HeadSHA), Status: gh.Ptr("completed"),
			App:       &gh.App{Slug: gh.Ptr(cs.AppSlug), Name: gh.Ptr(cs.AppSlug)},
			CreatedAt: &gh.Timestamp{Time: cs.Created}, UpdatedAt: &gh.Timestamp{Time: cs.Created},
		})
	}
	page := paginate(w, r, all)
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(all), "check_suites": page})
}

// listIssueEvents is GET …/issues/{number}/events: the issue's events,
// oldest first, paginated.
func (s *Server) listIssueEvents(w http.ResponseWriter, r *http.Request, _ string) {
	rp, n := s.issueFor(w, r)
	if rp == nil {
		return
	}
	var all []*gh.IssueEvent
	for i, ev := range rp.issueEvents[int(n)] {
		all = append(all, &gh.IssueEvent{
			ID: gh.Ptr(int64(i + 1)), Event: gh.Ptr(ev.Event), Actor: user(ev.Actor),
			CreatedAt: &gh.Timestamp{Time: ev.Created},
		})
	}
	writeJSON(w, http.StatusOK, paginate(w, r, all))
}

// listActivity is GET …/activity: the repository's changes to branches,
// newest first (direction=asc: oldest first), filtered by ref (a branch's
// name or refs/heads/<name>) and activity_type, paginated by cursor as
// GitHub does: a Link rel="next" carrying after=<cursor>.
func (s *Server) listActivity(w http.ResponseWriter, r *http.Request, _ string) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return
	}
	q := r.URL.Query()
	ref := q.Get("ref")
	if ref != "" && !strings.HasPrefix(ref, "refs/") {
		ref = "refs/heads/" + ref
	}
	var all []*gh.RepositoryActivity
	for i, a := range rp.activity {
		if (ref != "" && a.Ref != ref) || (q.Get("activity_type") != "" && a.Type != q.Get("activity_type")) {
			continue
		}
		all = append(all, &gh.RepositoryActivity{
			ID: int64(i + 1), NodeID: fmt.Sprintf("RA_%d", i+1), Before: a.Before, After: a.After, Ref: a.Ref,
			Timestamp: &gh.Timestamp{Time: a.At}, ActivityType: a.Type,
			Actor: &gh.RepositoryActor{Login: gh.Ptr(a.Actor)},
		})
	}
	slices.SortStableFunc(all, func(x, y *gh.RepositoryActivity) int { return y.Timestamp.Compare(x.Timestamp.Time) })
	if q.Get("direction") == "asc" {
		slices.Reverse(all)
	}
	per := perPage(q)
	from := 0
	if c := q.Get("after"); c != "" {
		n, err := strconv.Atoi(c)
		if err != nil || n < 0 || n > len(all) {
			writeError(w, http.StatusUnprocessableEntity, "Invalid cursor")
			return
		}
		from = n
	}
	to := min(from+per, len(all))
	if to < len(all) {
		nq := r.URL.Query()
		nq.Del("page")
		w.Header().Set("Link", pageLink(r, nq, "after", strconv.Itoa(to), "next"))
	}
	writeJSON(w, http.StatusOK, all[from:to])
}

// DenyCheckReads answers 403 "Resource not accessible by integration" to
// login's tokens reading check suites, as GitHub does for a workflow
// token without `checks: read`.
func (s *Server) DenyCheckReads(login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.checkReadsDenied == nil {
		s.checkReadsDenied = map[string]bool{}
	}
	s.checkReadsDenied[strings.ToLower(login)] = true
}

// DenyCheckRuns answers 403 "Resource not accessible by integration" to
// check run creation by login's tokens, as GitHub does for a workflow
// token without `checks: write`.
func (s *Server) DenyCheckRuns(login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.checksDenied == nil {
		s.checksDenied = map[string]bool{}
	}
	s.checksDenied[strings.ToLower(login)] = true
}
