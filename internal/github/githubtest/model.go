package githubtest

import (
	"hash/fnv"
	"net/http"
	"slices"
	"strings"
	"time"
)

// PullRequest is a seeded pull request.
type PullRequest struct {
	Number  int // 0 assigns the next issue number
	Title   string
	State   string // "open" (default) or "closed"
	Merged  bool
	Draft   bool
	User    string // author login
	HeadSHA string
	HeadRef string
	BaseRef string // default: the repository's default branch
	// HeadRepo is the full name of the head repository; empty means the
	// base repository itself (not a fork).
	HeadRepo string
	Files    []string // changed files, as the PR files API lists them
	// Commits are the pull request's commits, oldest first (GitHub lists
	// at most 250).
	Commits []Commit
}

// Commit is one commit of a pull request: the accounts GitHub linked to
// its author and committer ("" for none).
type Commit struct {
	SHA       string
	Author    string
	Committer string
}

// GitCommit is a commit of the repository as GET /repos/{o}/{r}/commits/{sha}
// shows it: its parents (a merge commit has two, the first being the
// branch it was merged into), message and author date.
type GitCommit struct {
	SHA        string
	Parents    []string
	Message    string
	AuthorDate time.Time
}

// Review is a pull request review.
type Review struct {
	ID          int64
	User        string
	UserType    string // default "Bot" for a login ending in [bot], else "User"
	State       string // APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING
	CommitID    string
	SubmittedAt time.Time
}

// Comment is an issue or pull request comment.
type Comment struct {
	ID        int64
	Issue     int
	User      string
	Body      string
	CreatedAt time.Time
	UpdatedAt time.Time
	Reactions []Reaction
	// Editor and LastEditedAt are the last edit (GraphQL's editor and
	// lastEditedAt): "" and zero for a comment never edited.
	Editor       string
	LastEditedAt time.Time
}

// Reaction is a reaction to a comment.
type Reaction struct {
	User    string
	Content string
}

// Issue is an issue (not a pull request).
type Issue struct {
	Number      int
	Title       string
	Body        string
	State       string // "open" (default) or "closed"
	StateReason string
	User        string
	Labels      []string
}

// CheckRun is a check run as last created or updated.
type CheckRun struct {
	ID         int64
	Name       string
	HeadSHA    string
	Status     string
	Conclusion string
	Title      string
	Summary    string
	Text       string
	DetailsURL string
	ExternalID string
}

// CheckSuite is a check suite on a commit. GitHub makes one per app with
// checks permission when the commit is pushed (and when a check run is
// created on a commit that has none of that app's); this server makes
// none of itself: a test adds those its story needs (AddCheckSuite).
type CheckSuite struct {
	HeadSHA string
	AppSlug string    // the app it belongs to ("github-actions", the bot's)
	Created time.Time // created_at: GitHub's clock
}

// IssueEvent is an event in an issue's or pull request's history
// (GET …/issues/{number}/events), such as "head_ref_force_pushed".
type IssueEvent struct {
	Event   string
	Actor   string
	Created time.Time // created_at: GitHub's clock
}

// Activity is a change to a branch, as the repository activity API lists
// it: Type "push", "force_push", "branch_creation", "branch_deletion".
type Activity struct {
	Ref           string // refs/heads/<branch>
	Type          string
	Before, After string
	Actor         string
	At            time.Time // timestamp: GitHub's clock
}

// Dispatch is a recorded workflow_dispatch.
type Dispatch struct {
	Workflow string
	Ref      string
	Inputs   map[string]any
}

type repo struct {
	owner, name   string
	defaultBranch string
	nextNumber    int
	pulls         map[int]*PullRequest
	issues        map[int]*Issue
	comments      []*Comment // ascending by ID
	reviews       map[int][]*Review
	perms         map[string]string
	commitPulls   map[string][]int
	commits       map[string]GitCommit
	files         map[string]map[string][]byte // ref -> path -> content
	refs          map[string]string            // ref -> sha
	tags          map[string]string            // tag name -> sha (SetTag)
	checkRuns     []*CheckRun
	checkSuites   []CheckSuite
	issueEvents   map[int][]IssueEvent
	activity      []Activity
	dispatches    []Dispatch
	workflows     map[string]*Workflow // file -> declared workflow (nil: none declared)
	runs          []*WorkflowRun
	runNumber     int
	labels        map[string]bool
	archived      bool
	id            int64     // numeric ID (default: a hash of the name)
	created       time.Time // created_at (zero: not given)
}

func (r *repo) fullName() string { return r.owner + "/" + r.name }

// repoLocked returns the seeded repository, creating it if create is set.
func (s *Server) repoLocked(fullName string, create bool) *repo {
	if rp, ok := s.repos[strings.ToLower(fullName)]; ok {
		return rp
	}
	if !create {
		return nil
	}
	owner, name, _ := strings.Cut(fullName, "/")
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(fullName)))
	rp := &repo{
		id: int64(h.Sum32()), owner: owner, name: name, defaultBranch: "main", nextNumber: 1,
		pulls: map[int]*PullRequest{}, issues: map[int]*Issue{}, reviews: map[int][]*Review{},
		perms: map[string]string{}, commitPulls: map[string][]int{}, commits: map[string]GitCommit{},
		files: map[string]map[string][]byte{}, refs: map[string]string{}, labels: map[string]bool{},
	}
	s.repos[strings.ToLower(fullName)] = rp
	return rp
}

// repoFor resolves {owner}/{repo} of an API request, answering 404 if unknown.
func (s *Server) repoFor(w http.ResponseWriter, r *http.Request) *repo {
	rp := s.repoLocked(r.PathValue("owner")+"/"+r.PathValue("repo"), false)
	if rp == nil {
		writeError(w, http.StatusNotFound, "Not Found")
	}
	return rp
}

// AddRepo seeds a repository ("owner/name") with its default branch. Other
// seeding methods create a repository with default branch "main" on demand.
func (s *Server) AddRepo(fullName, defaultBranch string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repoLocked(fullName, true).defaultBranch = defaultBranch
}

// SetRepoID gives a seeded repository its numeric ID and creation time, as
// the API and the payloads report them (by default its ID is a hash of
// its name and it has no creation time).
func (s *Server) SetRepoID(fullName string, id int64, created time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(fullName, true)
	rp.id, rp.created = id, created
}

// AddPullRequest seeds a pull request and returns its number.
func (s *Server) AddPullRequest(fullName string, pr PullRequest) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(fullName, true)
	if pr.Number == 0 {
		pr.Number = rp.nextNumber
	}
	rp.nextNumber = max(rp.nextNumber, pr.Number+1)
	if pr.State == "" {
		pr.State = "open"
	}
	if pr.BaseRef == "" {
		pr.BaseRef = rp.defaultBranch
	}
	pr.Files = slices.Clone(pr.Files)
	pr.Commits = slices.Clone(pr.Commits)
	rp.pulls[pr.Number] = &pr
	return pr.Number
}

// UpdatePullRequest changes a seeded pull request in place (a push, a merge).
func (s *Server) UpdatePullRequest(fullName string, number int, update func(*PullRequest)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pr := s.repoLocked(fullName, true).pulls[number]; pr != nil {
		update(pr)
	}
}

// AddReview seeds a review on a pull request, after the existing ones.
func (s *Server) AddReview(fullName string, number int, rv Review) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(fullName, true)
	if rv.ID == 0 {
		rv.ID = s.id()
	}
	if rv.SubmittedAt.IsZero() {
		rv.SubmittedAt = s.now()
	}
	rp.reviews[number] = append(rp.reviews[number], &rv)
	return rv.ID
}

// SetPermission gives user a role on the repository: admin, maintain, write,
// triage, read or none (or a custom role name).
func (s *Server) SetPermission(fullName, user, role string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repoLocked(fullName, true).perms[strings.ToLower(user)] = role
}

// AddComment seeds a comment on an issue or pull request and returns its ID.
func (s *Server) AddComment(fullName string, number int, user, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	c := &Comment{ID: s.id(), Issue: number, User: user, Body: body, CreatedAt: now, UpdatedAt: now}
	rp := s.repoLocked(fullName, true)
	rp.comments = append(rp.comments, c)
	return c.ID
}

// AddIssue seeds an issue and returns its number.
func (s *Server) AddIssue(fullName string, is Issue) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(fullName, true)
	return rp.addIssue(is)
}

func (r *repo) addIssue(is Issue) int {
	if is.Number == 0 {
		is.Number = r.nextNumber
	}
	r.nextNumber = max(r.nextNumber, is.Number+1)
	if is.State == "" {
		is.State = "open"
	}
	is.Labels = slices.Clone(is.Labels)
	for _, l := range is.Labels {
		r.labels[l] = true
	}
	r.issues[is.Number] = &is
	return is.Number
}

// SetFile stores a file at a ref (branch, tag or SHA), served by the
// contents API and in the tarball of that ref.
func (s *Server) SetFile(fullName, ref, path string, content []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(fullName, true)
	if rp.files[ref] == nil {
		rp.files[ref] = map[string][]byte{}
	}
	rp.files[ref][strings.TrimPrefix(path, "/")] = slices.Clone(content)
}

// SetRef makes a branch or tag name resolve to a commit SHA (for the
// contents API and tarballs).
func (s *Server) SetRef(fullName, ref, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repoLocked(fullName, true).refs[ref] = sha
}

// SetCommitPulls lists the pull requests associated with a commit (the
// answer of GET /repos/{o}/{r}/commits/{sha}/pulls).
func (s *Server) SetCommitPulls(fullName, sha string, numbers ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repoLocked(fullName, true).commitPulls[sha] = slices.Clone(numbers)
}

// AddCommit seeds a commit (GET /repos/{o}/{r}/commits/{sha}); a commit
// not seeded is answered 404.
func (s *Server) AddCommit(fullName string, c GitCommit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.Parents = slices.Clone(c.Parents)
	s.repoLocked(fullName, true).commits[c.SHA] = c
}

// Comments returns the comments on an issue or pull request, oldest first.
func (s *Server) Comments(fullName string, number int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.repoLocked(fullName, true).comments {
		if c.Issue == number {
			cc := *c
			cc.Reactions = slices.Clone(c.Reactions)
			out = append(out, cc)
		}
	}
	return out
}

// Issues returns the repository's issues (not pull requests) by number.
func (s *Server) Issues(fullName string) []Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(fullName, true)
	var out []Issue
	for _, n := range sortedKeys(rp.issues) {
		is := *rp.issues[n]
		is.Labels = slices.Clone(is.Labels)
		out = append(out, is)
	}
	return out
}

// CheckRuns returns the repository's check runs in creation order.
func (s *Server) CheckRuns(fullName string) []CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []CheckRun
	for _, c := range s.repoLocked(fullName, true).checkRuns {
		out = append(out, *c)
	}
	return out
}

// AddCheckSuite records check suite cs on the repository.
func (s *Server) AddCheckSuite(fullName string, cs CheckSuite) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(fullName, true)
	rp.checkSuites = append(rp.checkSuites, cs)
}

// AddIssueEvent records event ev in issue (or pull request) number's
// history.
func (s *Server) AddIssueEvent(fullName string, number int, ev IssueEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(fullName, true)
	if rp.issueEvents == nil {
		rp.issueEvents = map[int][]IssueEvent{}
	}
	rp.issueEvents[number] = append(rp.issueEvents[number], ev)
}

// AddActivity records change a in the repository's activity.
func (s *Server) AddActivity(fullName string, a Activity) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(fullName, true)
	rp.activity = append(rp.activity, a)
}

// Dispatches returns the workflow dispatches received for the repository.
func (s *Server) Dispatches(fullName string) []Dispatch {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.repoLocked(fullName, true).dispatches)
}

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
