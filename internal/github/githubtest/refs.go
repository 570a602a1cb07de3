package githubtest

import (
	"crypto/sha1"
	"encoding/hex"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v88/github"
)

// Branches and tags. A branch is a name SetRef or SetFile gave (its commit
// the one SetRef named, or one made up from the name); a tag is a name
// SetTag gave. As in git, a short name that is both resolves to the tag
// (refs/tags/ comes before refs/heads/), which is why a client that means
// a branch says refs/heads/<name>.

func (s *Server) refRoutes(api func(string, handler)) {
	api("GET /repos/{owner}/{repo}/git/ref/{ref...}", s.getRef)
}

// SetTag makes tag name a tag of the repository pointing at sha.
func (s *Server) SetTag(fullName, name, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(fullName, true)
	if rp.tags == nil {
		rp.tags = map[string]string{}
	}
	rp.tags[name] = sha
}

// branchSHA is the commit branch name points at; false when there is no
// such branch.
func (rp *repo) branchSHA(name string) (string, bool) {
	if sha, ok := rp.refs[name]; ok {
		return sha, true
	}
	if rp.files[name] == nil {
		return "", false
	}
	return syntheticSHA(rp, name), true
}

// syntheticSHA is the commit SHA shown for ref when it names no commit of
// its own: ref itself when it is a SHA, else one made up from it.
func syntheticSHA(rp *repo, ref string) string {
	if shaRE.MatchString(ref) {
		return ref
	}
	sum := sha1.Sum([]byte(rp.fullName() + "@" + ref))
	return hex.EncodeToString(sum[:])
}

// resolveRef is what a workflow dispatch's ref runs: the commit and the
// run's head_branch (a tag's name for a tag, as GitHub shows it). A ref
// that names nothing runs "itself" (the fake's leniency for tests that
// seed no branch).
func (rp *repo) resolveRef(ref string) (sha, headBranch string) {
	if name, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
		if sha, ok := rp.branchSHA(name); ok {
			return sha, name
		}
		return name, name
	}
	if name, ok := strings.CutPrefix(ref, "refs/tags/"); ok {
		if sha, ok := rp.tags[name]; ok {
			return sha, name
		}
		return name, name
	}
	if sha, ok := rp.tags[ref]; ok {
		return sha, ref
	}
	if sha, ok := rp.branchSHA(ref); ok {
		return sha, ref
	}
	return ref, ref
}

// getRef answers GET /repos/{o}/{r}/git/ref/heads/<branch> and
// …/tags/<tag>: exactly that ref, or 404.
func (s *Server) getRef(w http.ResponseWriter, r *http.Request, _ string) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return
	}
	ref := r.PathValue("ref")
	var sha string
	var ok bool
	if name, isBranch := strings.CutPrefix(ref, "heads/"); isBranch {
		sha, ok = rp.branchSHA(name)
	} else if name, isTag := strings.CutPrefix(ref, "tags/"); isTag {
		sha, ok = rp.tags[name]
	}
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, &gh.Reference{
		Ref:    gh.Ptr("refs/" + ref),
		URL:    gh.Ptr(s.URL + BasePath + "repos/" + rp.fullName() + "/git/refs/" + ref),
		Object: &gh.GitObject{Type: gh.Ptr("commit"), SHA: gh.Ptr(sha)},
	})
}
