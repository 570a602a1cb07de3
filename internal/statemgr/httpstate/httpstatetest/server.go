// Package httpstatetest is a state server that follows Terraform's HTTP
// backend protocol as documented (and as GitLab's managed state behaves),
// for tests: GET returns the document (404 when none), POST stores it
// (refused with 409 while the state is locked under another ID than the
// request's ?ID=), LOCK takes the lock (423 with the holder's lock info when
// held), UNLOCK releases it (409 with the holder's lock info for another
// ID), DELETE removes the document; basic auth when a username is set. It is
// mounted under a non-empty base path, so a client that drops the path
// fails. Faults can be injected: a share of requests answered 502, and
// answers lost after the work was done.
package httpstatetest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// BasePath is where state documents live: BasePath + <name>.
const BasePath = "/api/v4/projects/7/terraform/state/"

// Server is a running protocol server.
type Server struct {
	URL                string // base URL, ending in BasePath
	Username, Password string // required when Username is set

	mu    sync.Mutex
	docs  map[string][]byte
	locks map[string][]byte
	// FailNext makes the next n requests answer 502 without doing anything.
	failNext int
	// LoseNext makes the next n requests do their work and then drop the
	// connection without an answer.
	loseNext   int
	loseMethod string         // "": any method
	requests   map[string]int // by method
}

// New starts a server that stops with t.
func New(t testing.TB) *Server {
	s := &Server{docs: map[string][]byte{}, locks: map[string][]byte{}, requests: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc(BasePath, s.serve)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	s.URL = ts.URL + BasePath
	return s
}

// Fail makes the next n requests answer 502.
func (s *Server) Fail(n int) { s.mu.Lock(); s.failNext = n; s.mu.Unlock() }

// Lose makes the next n requests do their work and drop their answer.
func (s *Server) Lose(n int) { s.LoseMethod("", n) }

// LoseMethod makes the next n requests of method (any when "") do their
// work and drop their answer.
func (s *Server) LoseMethod(method string, n int) {
	s.mu.Lock()
	s.loseNext, s.loseMethod = n, method
	s.mu.Unlock()
}

// Document returns the stored document of name (nil when none).
func (s *Server) Document(name string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[name]
}

// Documents returns every stored document by name.
func (s *Server) Documents() map[string][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][]byte{}
	for k, v := range s.docs {
		out[k] = v
	}
	return out
}

// Requests returns how many requests of method arrived.
func (s *Server) Requests(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[method]
}

func lockID(body []byte) string {
	var l struct{ ID string }
	_ = json.Unmarshal(body, &l)
	return l.ID
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.Username != "" {
		if u, p, ok := r.BasicAuth(); !ok || u != s.Username || p != s.Password {
			w.Header().Set("WWW-Authenticate", `Basic realm="state"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
	}
	// GitLab-style lock addresses end in /lock: the state they lock is the
	// path without it.
	name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, BasePath), "/lock")
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests[r.Method]++
	if s.failNext > 0 {
		s.failNext--
		s.mu.Unlock()
		http.Error(w, "bad gateway", http.StatusBadGateway)
		return
	}
	lose := s.loseNext > 0 && (s.loseMethod == "" || s.loseMethod == r.Method)
	if lose {
		s.loseNext--
	}
	status, answer := s.handle(r, name, body)
	s.mu.Unlock()
	if lose {
		panic(http.ErrAbortHandler) // the work is done; the answer never leaves
	}
	w.WriteHeader(status)
	_, _ = w.Write(answer)
}

// handle does the protocol's work; s.mu is held.
func (s *Server) handle(r *http.Request, name string, body []byte) (int, []byte) {
	held, locked := s.locks[name]
	method := r.Method
	if strings.HasSuffix(r.URL.Path, "/lock") { // GitLab: POST …/lock locks, DELETE …/lock unlocks
		switch method {
		case http.MethodPost:
			method = "LOCK"
		case http.MethodDelete:
			method = "UNLOCK"
		}
	}
	switch method {
	case http.MethodGet:
		doc, ok := s.docs[name]
		if !ok {
			return http.StatusNotFound, nil
		}
		return http.StatusOK, doc
	case http.MethodPost, http.MethodPut:
		if locked && r.URL.Query().Get("ID") != lockID(held) {
			return http.StatusConflict, held
		}
		if !json.Valid(body) {
			return http.StatusBadRequest, []byte("not JSON")
		}
		s.docs[name] = body
		return http.StatusOK, nil
	case http.MethodDelete:
		delete(s.docs, name)
		return http.StatusOK, nil
	case "LOCK":
		if locked {
			return http.StatusLocked, held
		}
		if lockID(body) == "" {
			return http.StatusBadRequest, []byte("lock info without an ID")
		}
		s.locks[name] = body
		return http.StatusOK, nil
	case "UNLOCK":
		return s.unlock(name, body, held, locked)
	}
	return http.StatusMethodNotAllowed, nil
}

func (s *Server) unlock(name string, body, held []byte, locked bool) (int, []byte) {
	if !locked {
		return http.StatusConflict, nil
	}
	if lockID(body) != lockID(held) {
		return http.StatusConflict, held
	}
	delete(s.locks, name)
	return http.StatusOK, nil
}

// Lock returns the lock info held on name (nil when it is not locked).
func (s *Server) Lock(name string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.locks[name]
}
