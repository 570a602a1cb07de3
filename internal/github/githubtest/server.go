package githubtest

import (
	"bytes"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BasePath is where the REST API is mounted, as on GitHub Enterprise Server.
const BasePath = "/api/v3/"

// Token is a static token every Server accepts, authenticating as TokenUser.
const Token = "ghs_test_static_token"

// TokenUser is the login Token authenticates as (the author of comments,
// issues and check runs created with it).
const TokenUser = "github-actions[bot]"

// Request is one request the server received.
type Request struct {
	Method   string
	Path     string // URL path, including BasePath
	RawQuery string
	Body     []byte
}

// Failure is a kind of error response FailNext injects.
type Failure int

// Injectable failures, each shaped like GitHub's real answer.
const (
	// Fail429 answers 429 Too Many Requests with Retry-After.
	Fail429 Failure = iota + 1
	// FailSecondary403 answers 403 with Retry-After and the secondary rate
	// limit message.
	FailSecondary403
	// FailPrimary403 answers 403 with X-RateLimit-Remaining: 0 and an
	// X-RateLimit-Reset in the future.
	FailPrimary403
	// Fail502 answers 502 Bad Gateway.
	Fail502
)

// String names the failure.
func (f Failure) String() string {
	switch f {
	case Fail429:
		return "429"
	case FailSecondary403:
		return "secondary-403"
	case FailPrimary403:
		return "primary-403"
	case Fail502:
		return "502"
	}
	return "Failure(" + strconv.Itoa(int(f)) + ")"
}

type failure struct {
	kind       Failure
	retryAfter time.Duration
}

// Server is the fake GitHub API. Seed it with the Add*/Set* methods, point a
// client at APIURL, and inspect what the client did with Requests, Comments,
// Issues, CheckRuns and Dispatches.
type Server struct {
	*httptest.Server

	mu               sync.Mutex
	now              func() time.Time
	repos            map[string]*repo
	tokens           map[string]string // token -> login
	appID            int64
	appKey           *rsa.PublicKey
	appLogin         string
	issued           []string
	requests         []Request
	nextID           int64
	rateRemaining    int
	failures         []failure
	failMatching     []failMatch
	archives         map[string]archiveRef // codeload token -> archive
	installs         []*installation
	tokenInstall     map[string]int64           // installation token -> installation ID
	teams            map[string]map[string]bool // "org/team" -> member logins (lower case)
	teamReaders      map[string]bool            // logins whose tokens see teams (nil: all)
	checksDenied     map[string]bool            // logins whose tokens may not write check runs
	checkReadsDenied map[string]bool            // logins whose tokens may not read check suites
	graphqlDenied    map[string]bool            // logins whose tokens may not use GraphQL
	holds            []*hold
	held             int
}

// hold makes matching requests wait until it is released.
type hold struct {
	match    func(method, path string) bool
	released chan struct{}
}

// Hold makes every request that match(method, path) accepts wait, before
// it is handled and with nothing done yet, until release is called or its
// client goes away (a client that was killed leaves nothing behind).
// Held counts the requests waiting.
func (s *Server) Hold(match func(method, path string) bool) (release func()) {
	h := &hold{match: match, released: make(chan struct{})}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holds = append(s.holds, h)
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.holds = slices.DeleteFunc(s.holds, func(x *hold) bool { return x == h })
			close(h.released)
		})
	}
}

// Held is the number of requests Hold keeps waiting.
func (s *Server) Held() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

type archiveRef struct{ repo, ref string }

// NewServer starts a fake GitHub API that is closed when the test ends.
func NewServer(t testing.TB) *Server {
	t.Helper()
	s := &Server{
		now:           time.Now,
		repos:         map[string]*repo{},
		tokens:        map[string]string{Token: TokenUser},
		appLogin:      "kyku[bot]",
		nextID:        1000,
		rateRemaining: 4999,
		archives:      map[string]archiveRef{},
		tokenInstall:  map[string]int64{},
	}
	s.Server = httptest.NewServer(s.routes())
	t.Cleanup(s.Close)
	return s
}

// APIURL is the API base URL with its trailing slash, the value of
// GITHUB_API_URL for clients under test.
func (s *Server) APIURL() string { return s.URL + BasePath }

// SetNow replaces the server's clock (JWT validation, timestamps).
func (s *Server) SetNow(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
}

// AddToken makes token valid, authenticating as login.
func (s *Server) AddToken(token, login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens[token] = login
}

// SetApp configures the GitHub App whose JWTs (RS256, iss = appID) may be
// exchanged for installation tokens; login is the bot user those tokens
// authenticate as (e.g. "kyku[bot]").
func (s *Server) SetApp(appID int64, key *rsa.PublicKey, login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.appID, s.appKey, s.appLogin = appID, key, login
}

// IssuedTokens lists the installation tokens handed out so far.
func (s *Server) IssuedTokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.issued...)
}

// SetRateLimitRemaining sets the X-RateLimit-Remaining header of every
// following response.
func (s *Server) SetRateLimitRemaining(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rateRemaining = n
}

// FailNext answers the next n API requests with failure f; retryAfter is the
// advertised wait (Retry-After, or the rate-limit reset for FailPrimary403).
func (s *Server) FailNext(n int, f Failure, retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.failures = append(s.failures, failure{kind: f, retryAfter: retryAfter})
	}
}

// FailMatching answers every API request that match accepts with failure
// f (retryAfter as for FailNext), for as long as the server runs: a part
// of GitHub that keeps failing while the rest answers.
func (s *Server) FailMatching(match func(method, path string) bool, f Failure, retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failMatching = append(s.failMatching, failMatch{match: match, failure: failure{kind: f, retryAfter: retryAfter}})
}

type failMatch struct {
	match func(method, path string) bool
	failure
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// CountRequests counts received requests with this method whose path ends
// with suffix (e.g. CountRequests("PATCH", "/issues/comments/1001")); an
// empty method or suffix matches any.
func (s *Server) CountRequests(method, suffix string) int {
	n := 0
	for _, r := range s.Requests() {
		if (method == "" || r.Method == method) && strings.HasSuffix(r.Path, suffix) {
			n++
		}
	}
	return n
}

// ResetRequests forgets the recorded requests.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

// handler is an API handler run with the server lock held; login is the
// authenticated user.
type handler func(w http.ResponseWriter, r *http.Request, login string)

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	api := func(pattern string, h handler) {
		method, path, _ := strings.Cut(pattern, " ")
		mux.Handle(method+" "+strings.TrimSuffix(BasePath, "/")+path, s.authed(h))
	}
	s.issueRoutes(api)
	s.pullRoutes(api)
	s.repoRoutes(api)
	s.actionsRoutes(api)
	s.refRoutes(api)
	s.teamRoutes(api)
	mux.Handle("POST "+GraphQLPath, s.authed(s.graphql))
	mux.HandleFunc("POST "+BasePath+"app/installations/{id}/access_tokens", s.locked(s.accessToken))
	s.appRoutes(mux)
	mux.HandleFunc("GET /_codeload/{token}", s.locked(s.codeload))
	mux.HandleFunc(BasePath, func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "Not Found")
	})
	return s.recording(mux)
}

// recording records the request, applies injected failures and sets the
// rate-limit headers.
func (s *Server) recording(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.mu.Lock()
		s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Body: body})
		now := s.now()
		h := w.Header()
		h.Set("X-RateLimit-Limit", "5000")
		h.Set("X-RateLimit-Remaining", strconv.Itoa(s.rateRemaining))
		h.Set("X-RateLimit-Reset", strconv.FormatInt(now.Add(time.Hour).Unix(), 10))
		h.Set("X-RateLimit-Resource", "core")
		var fail *failure
		if len(s.failures) > 0 && strings.HasPrefix(r.URL.Path, BasePath) {
			f := s.failures[0]
			s.failures = s.failures[1:]
			fail = &f
		}
		for _, m := range s.failMatching {
			if fail == nil && strings.HasPrefix(r.URL.Path, BasePath) && m.match(r.Method, r.URL.Path) {
				fail = &m.failure
			}
		}
		var held *hold
		for _, h := range s.holds {
			if h.match(r.Method, r.URL.Path) {
				held = h
				s.held++
				break
			}
		}
		s.mu.Unlock()
		if held != nil {
			select {
			case <-held.released:
			case <-r.Context().Done():
			}
			s.mu.Lock()
			s.held--
			s.mu.Unlock()
			if r.Context().Err() != nil {
				return
			}
		}
		if fail != nil {
			writeFailure(w, *fail, now)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func writeFailure(w http.ResponseWriter, f failure, now time.Time) {
	secs := strconv.Itoa(int(f.retryAfter.Round(time.Second) / time.Second))
	switch f.kind {
	case Fail429:
		w.Header().Set("Retry-After", secs)
		writeError(w, http.StatusTooManyRequests, "API rate limit exceeded")
	case FailSecondary403:
		w.Header().Set("Retry-After", secs)
		writeError(w, http.StatusForbidden, "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.")
	case FailPrimary403:
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(now.Add(f.retryAfter).Unix(), 10))
		writeError(w, http.StatusForbidden, "API rate limit exceeded for installation.")
	default:
		writeError(w, http.StatusBadGateway, "Server Error")
	}
}

func (s *Server) locked(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		h(w, r)
	}
}

// authed requires "Authorization: token X" or "Bearer X" with a known token.
func (s *Server) authed(h handler) http.Handler {
	return s.locked(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		scheme, tok, _ := strings.Cut(auth, " ")
		login, ok := s.tokens[tok]
		if !ok || (!strings.EqualFold(scheme, "token") && !strings.EqualFold(scheme, "bearer")) {
			writeError(w, http.StatusUnauthorized, "Bad credentials")
			return
		}
		h(w, r, login)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{
		"message":           msg,
		"documentation_url": "https://docs.github.com/rest",
	})
}

// writeInvalid answers 422 with GitHub's validation error shape.
func writeInvalid(w http.ResponseWriter, resource, field string) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{
		"message": "Validation Failed",
		"errors": []map[string]string{
			{"resource": resource, "field": field, "code": "missing_field"},
		},
		"documentation_url": "https://docs.github.com/rest",
	})
}

// decode reads a JSON body into v, answering 400 on malformed JSON.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	return true
}

// perPage is a request's per_page: 30 by default, at most 100.
func perPage(q url.Values) int {
	if n, err := strconv.Atoi(q.Get("per_page")); err == nil && n > 0 {
		return min(n, 100)
	}
	return 30
}

// paginate honours per_page (default 30, max 100) and page, and sets a Link
// header like GitHub's.
func paginate[T any](w http.ResponseWriter, r *http.Request, items []T) []T {
	q := r.URL.Query()
	per := perPage(q)
	page := 1
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 0 {
		page = n
	}
	last := max(1, (len(items)+per-1)/per)
	link := func(p int, rel string) string { return pageLink(r, q, "page", strconv.Itoa(p), rel) }
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(page-1, "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo := min((page-1)*per, len(items))
	hi := min(lo+per, len(items))
	return append([]T{}, items[lo:hi]...)
}

// pageLink is a Link header's entry rel: the request's URL with q for
// its query, key set to value (a page number, a cursor).
func pageLink(r *http.Request, q url.Values, key, value, rel string) string {
	q.Set(key, value)
	u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path, RawQuery: q.Encode()}
	return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
}

func pathInt(w http.ResponseWriter, r *http.Request, name string) (int64, bool) {
	n, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return 0, false
	}
	return n, true
}

func (s *Server) id() int64 {
	s.nextID++
	return s.nextID
}
