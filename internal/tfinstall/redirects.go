package tfinstall

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Which redirects the registry client follows.
//
// OpenTofu follows any redirect (Go's default: ten, to any host and any
// scheme, https to http included). Kyku's rule is narrower and keeps what
// registries in use need:
//
//   - Only https, at every hop: a redirect to http:// (or any other
//     scheme) is refused, whatever asked for it. A plain-text hop would let
//     anyone on the path see and change what is fetched.
//   - The registry's own API (service discovery, the versions list, the
//     download answer) stays on the host asked: a redirect to another host
//     is refused. What a registry answers is trusted because TLS proved
//     its host; a redirect elsewhere would hand that trust to a host no
//     source names. (An answer may still name another host, in a service
//     URL or a file URL: then the answer said so, not a redirect.)
//   - The files the download answer names (SHA256SUMS, its signature, the
//     archive) may be redirected to any https host: registries serve them
//     from elsewhere (registry.opentofu.org names GitHub release assets,
//     which redirect to GitHub's object store; private registries redirect
//     to signed bucket URLs). Their bytes are checked against the signature
//     by a key the registry's answer named, so where they come from does
//     not decide what is installed; https keeps them private.
//   - At most maxRedirects hops.
//   - A registry's token (credentials.go) is never sent to another host
//     than its own: a redirect elsewhere goes without it, even to a
//     subdomain, where Go's client would keep it.
const maxRedirects = 10

// requestKind is what a request fetches, which decides its redirects.
type requestKind int

const (
	apiRequest  requestKind = iota // the registry's API: same host only
	fileRequest                    // a file the download answer names: any https host
)

// ErrRedirectRefused is wrapped by the error of a request whose redirect
// the registry client refused.
var ErrRedirectRefused = errors.New("redirect refused")

// checkRedirect is the http.Client CheckRedirect of kind.
func (k requestKind) checkRedirect(req *http.Request, via []*http.Request) error {
	from := via[len(via)-1].URL
	to := req.URL
	switch {
	case len(via) >= maxRedirects:
		return fmt.Errorf("%w: more than %d redirects from %s", ErrRedirectRefused, maxRedirects, via[0].URL.Redacted())
	case to.Scheme != "https":
		return fmt.Errorf("%w: from %s to %s: Kyku speaks only https", ErrRedirectRefused, from.Redacted(), to.Redacted())
	case k == apiRequest && !strings.EqualFold(to.Host, via[0].URL.Host):
		return fmt.Errorf("%w: from %s to %s, another host: the registry's answers must come from the host asked (%s)",
			ErrRedirectRefused, from.Redacted(), to.Redacted(), via[0].URL.Host)
	}
	return nil
}

// HTTPSClient is c with the rule above (a copy): only https at every hop,
// at most maxRedirects, and with sameHost only to the host first asked,
// as for a registry's API; without, to any https host, as for the files
// it names. Package tfmodule fetches modules by the same rule.
func HTTPSClient(c *http.Client, sameHost bool) *http.Client {
	if sameHost {
		return apiRequest.client(c)
	}
	return fileRequest.client(c)
}

// client is c with kind's redirect rule before c's own (a copy: the
// caller's client is not changed).
func (k requestKind) client(c *http.Client) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	out := *c
	own := c.CheckRedirect
	out.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := k.checkRedirect(req, via); err != nil {
			return err
		}
		withoutForeignCredentials(req, via)
		if own != nil {
			return own(req, via)
		}
		return nil
	}
	return &out
}
