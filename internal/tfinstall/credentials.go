package tfinstall

import (
	"fmt"
	"net/http"

	"github.com/kyku/action/internal/hostcreds"
)

// Authorizer adds the credentials of a registry host to a request, only
// when the request goes to that host itself, and says whether it did
// (hostcreds.Tokens is one).
type Authorizer interface {
	Authorize(req *http.Request, host string) bool
}

var _ Authorizer = (*hostcreds.Tokens)(nil)

// UnauthorizedError is a registry host's API refusing a request (401 or
// 403), as OpenTofu words it: with a token, the host rejected it;
// without, it wants one. It never holds the token.
type UnauthorizedError struct {
	Host            string
	HaveCredentials bool
}

func (e *UnauthorizedError) Error() string {
	if e.HaveCredentials {
		return fmt.Sprintf("host %s rejected the given authentication credentials", e.Host)
	}
	return fmt.Sprintf("host %s requires authentication credentials (set %s, or a credentials block for it in the CLI configuration)",
		e.Host, hostcreds.EnvName(e.Host))
}

func unauthorized(host string, had bool) error {
	return &UnauthorizedError{Host: host, HaveCredentials: had}
}

// withoutForeignCredentials drops the Authorization header of a
// redirected request going to another host than the first request's:
// a token is for its host alone. (Go's client keeps it for a subdomain.)
func withoutForeignCredentials(req *http.Request, via []*http.Request) {
	if !hostcreds.SameHost(req.URL.Host, via[0].URL.Host) {
		req.Header.Del("Authorization")
	}
}
