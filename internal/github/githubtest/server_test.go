package githubtest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func do(t *testing.T, method, url, token, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "token "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestServerSpeaksTheAPI(t *testing.T) {
	s := NewServer(t)
	s.AddIssue("acme/infra", Issue{Title: "a"})
	for range 5 {
		s.AddComment("acme/infra", 1, "bob", "hi")
	}
	api := s.APIURL() + "repos/acme/infra/"
	tests := []struct {
		name, method, url, token, body string
		wantStatus                     int
		wantInBody                     string
	}{
		{"no token", "GET", api + "issues/1/comments", "", "", 401, "Bad credentials"},
		{"unknown token", "GET", api + "issues/1/comments", "nope", "", 401, "Bad credentials"},
		{"missing base path", "GET", s.URL + "/repos/acme/infra/issues/1/comments", Token, "", 404, ""},
		{"unknown repo", "GET", s.APIURL() + "repos/acme/other/issues", Token, "", 404, "Not Found"},
		{"unknown pull", "GET", api + "pulls/9", Token, "", 404, "Not Found"},
		{"issue without title", "POST", api + "issues", Token, `{"body":"x"}`, 422, "Validation Failed"},
		{"malformed json", "POST", api + "issues", Token, `{`, 400, "Problems parsing JSON"},
		{"created", "POST", api + "issues/1/comments", Token, `{"body":"x"}`, 201, `"login":"github-actions[bot]"`},
		{"bad reaction", "POST", api + "issues/comments/1001/reactions", Token, `{"content":"wow"}`, 422, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := do(t, tt.method, tt.url, tt.token, tt.body)
			if resp.StatusCode != tt.wantStatus || !strings.Contains(body, tt.wantInBody) {
				t.Errorf("%d %s, want %d containing %q", resp.StatusCode, body, tt.wantStatus, tt.wantInBody)
			}
		})
	}
	if got := len(s.Requests()); got != len(tests) {
		t.Errorf("recorded %d requests, want %d", got, len(tests))
	}
}

func TestServerPaginates(t *testing.T) {
	s := NewServer(t)
	s.AddIssue("acme/infra", Issue{Title: "a"})
	for range 5 {
		s.AddComment("acme/infra", 1, "bob", "hi")
	}
	resp, body := do(t, "GET", s.APIURL()+"repos/acme/infra/issues/1/comments?per_page=2&page=2", Token, "")
	link := resp.Header.Get("Link")
	for _, want := range []string{`page=3&per_page=2>; rel="next"`, `page=3&per_page=2>; rel="last"`, `page=1&per_page=2>; rel="first"`, `page=1&per_page=2>; rel="prev"`} {
		if !strings.Contains(link, want) {
			t.Errorf("Link %q lacks %q", link, want)
		}
	}
	if n := strings.Count(body, `"id":`); n != 2 {
		t.Errorf("page holds %d comments, want 2", n)
	}
	if resp.Header.Get("X-RateLimit-Remaining") == "" {
		t.Error("no rate limit header")
	}
}
