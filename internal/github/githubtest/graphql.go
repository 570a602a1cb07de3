package githubtest

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The GraphQL API, as far as Kyku reads it (POST /api/graphql, GitHub
// Enterprise Server's path beside the REST API under /api/v3/): the
// token's account (viewer { login }: a person's login, or "<slug>[bot]"
// for an installation token, github-actions[bot] for a workflow's
// GITHUB_TOKEN) and an issue comment's last edit (node(id:) … on
// IssueComment { lastEditedAt editor { login } }). Answers have GitHub's
// shape: HTTP 200 with data, and errors for what cannot be resolved.

// GraphQLPath is where the GraphQL API is mounted.
const GraphQLPath = "/api/graphql"

// DenyGraphQL answers 403 to GraphQL requests of login's tokens (a token
// that may not use it).
func (s *Server) DenyGraphQL(login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.graphqlDenied == nil {
		s.graphqlDenied = map[string]bool{}
	}
	s.graphqlDenied[strings.ToLower(login)] = true
}

type graphqlError struct {
	Type    string   `json:"type,omitempty"`
	Path    []string `json:"path,omitempty"`
	Message string   `json:"message"`
}

func (s *Server) graphql(w http.ResponseWriter, r *http.Request, login string) {
	if s.graphqlDenied[strings.ToLower(login)] {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	var in struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if !decode(w, r, &in) {
		return
	}
	q := strings.Join(strings.Fields(in.Query), "")
	switch {
	case strings.Contains(q, "viewer{login}"):
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"viewer": map[string]any{"login": login}}})
	case strings.Contains(q, "node(id:$id)") && strings.Contains(q, "...onIssueComment"):
		id, _ := in.Variables["id"].(string)
		c := s.commentByNode(id)
		if c == nil {
			writeJSON(w, http.StatusOK, map[string]any{
				"data":   map[string]any{"node": nil},
				"errors": []graphqlError{{Type: "NOT_FOUND", Path: []string{"node"}, Message: "Could not resolve to a node with the global id of '" + id + "'"}},
			})
			return
		}
		node := map[string]any{"__typename": "IssueComment", "lastEditedAt": nil, "editor": nil, "updatedAt": c.UpdatedAt.UTC().Format(time.RFC3339)}
		if c.Editor != "" {
			node["lastEditedAt"] = c.LastEditedAt.UTC().Format(time.RFC3339)
			node["editor"] = map[string]any{"login": c.Editor}
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"node": node}})
	default:
		writeJSON(w, http.StatusOK, map[string]any{"errors": []graphqlError{{Message: "the fake GitHub does not answer this query: " + in.Query}}})
	}
}

// nodeID is the GraphQL global ID of comment id.
func nodeID(id int64) string { return "IC_kwDO" + strconv.FormatInt(id, 10) }

func (s *Server) commentByNode(node string) *Comment {
	n, ok := strings.CutPrefix(node, "IC_kwDO")
	if !ok {
		return nil
	}
	id, err := strconv.ParseInt(n, 10, 64)
	if err != nil {
		return nil
	}
	for _, rp := range s.repos {
		if c := rp.comment(id); c != nil {
			return c
		}
	}
	return nil
}

// EditComment edits comment id as login would through the API (a writer
// editing anyone's comment): the body, updated_at, and the last edit
// GraphQL reports.
func (s *Server) EditComment(fullName string, id int64, login, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.repoLocked(fullName, true).comment(id); c != nil {
		s.edit(c, login, body)
	}
}

func (s *Server) edit(c *Comment, login, body string) {
	now := s.now()
	c.Body, c.UpdatedAt, c.Editor, c.LastEditedAt = body, now, login, now
}
