package tfmodule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"

	"github.com/kyku/action/internal/tfinstall"
)

// registry is a client of the module registry protocol: service
// discovery ("modules.v1" in /.well-known/terraform.json), a module's
// versions, and where a version's package is. Its API answers over
// https only and from the host asked (tfinstall's redirect rule). Safe
// for concurrent use.
type registry struct {
	http  *http.Client
	creds tfinstall.Authorizer

	mu       sync.Mutex
	services map[string]*url.URL
	versions map[RegistryPackage][]string
}

// Limits on the registry's answers.
const (
	maxDocument = 4 << 20
	maxErrBody  = 512
)

// ErrModuleNotFound is wrapped by the error of a module the registry does
// not have.
var ErrModuleNotFound = errors.New("module not found")

// location is where a version's package is: an address fetched as if a
// module call had it as its source (indirect), or a package URL the
// registry serves itself (direct).
type location struct {
	indirect Source   // Kind Remote, with the call's subdirectory joined
	direct   *url.URL // an archive
	subdir   string   // of a direct location
	useCreds bool     // send the registry's credentials with direct
}

func (l location) String() string {
	if l.direct != nil {
		return l.direct.Redacted()
	}
	return redact(l.indirect.String())
}

// baseURL discovers host's module registry service.
func (r *registry) baseURL(ctx context.Context, host string) (*url.URL, error) {
	r.mu.Lock()
	u, ok := r.services[host]
	r.mu.Unlock()
	if ok {
		return u, nil
	}
	disco := &url.URL{Scheme: "https", Host: host, Path: "/.well-known/terraform.json"}
	resp, err := r.get(ctx, disco, host)
	if err != nil {
		return nil, fmt.Errorf("discover the services of %s: %w", host, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("discover the services of %s: it has no discovery document, so no module registry", host)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("discover the services of %s: %s", host, resp.Status)
	}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, fmt.Errorf("discover the services of %s: the discovery document is %q, not application/json", host, resp.Header.Get("Content-Type"))
	}
	var doc map[string]any
	if err := readJSON(resp, &doc); err != nil {
		return nil, fmt.Errorf("discover the services of %s: %w", host, err)
	}
	s, ok := doc["modules.v1"].(string)
	if !ok || s == "" {
		return nil, fmt.Errorf("discover the services of %s: the host offers no module registry (modules.v1)", host)
	}
	u, err = httpsURL(resp.Request.URL, s)
	if err != nil {
		return nil, fmt.Errorf("discover the services of %s: modules.v1: %w", host, err)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	r.mu.Lock()
	if r.services == nil {
		r.services = map[string]*url.URL{}
	}
	r.services[host] = u
	r.mu.Unlock()
	return u, nil
}

// httpsURL resolves ref against base and refuses anything but https.
func httpsURL(base *url.URL, ref string) (*url.URL, error) {
	u, err := base.Parse(ref)
	if err != nil {
		return nil, fmt.Errorf("bad URL %q: %w", ref, err)
	}
	if u.Scheme != "https" {
		return nil, fmt.Errorf("%w: %s: Kyku fetches modules over https only", ErrInsecure, u.Redacted())
	}
	return u, nil
}

// endpoint is the URL of p's API path parts.
func (r *registry) endpoint(ctx context.Context, p RegistryPackage, parts ...string) (*url.URL, error) {
	base, err := r.baseURL(ctx, p.Host)
	if err != nil {
		return nil, err
	}
	rel := []string{url.PathEscape(p.Namespace), url.PathEscape(p.Name), url.PathEscape(p.System)}
	for _, s := range parts {
		rel = append(rel, url.PathEscape(s))
	}
	return base.Parse(path.Join(rel...))
}

// listVersions lists p's versions (asked once per run).
func (r *registry) listVersions(ctx context.Context, p RegistryPackage) ([]string, error) {
	r.mu.Lock()
	vs, ok := r.versions[p]
	r.mu.Unlock()
	if ok {
		return vs, nil
	}
	u, err := r.endpoint(ctx, p, "versions")
	if err != nil {
		return nil, err
	}
	resp, err := r.get(ctx, u, p.Host)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		return nil, fmt.Errorf("%w: %s", ErrModuleNotFound, p)
	default:
		return nil, fmt.Errorf("error looking up module versions: %s", resp.Status)
	}
	var doc struct {
		Modules []struct {
			Versions []struct {
				Version string `json:"version"`
			} `json:"versions"`
		} `json:"modules"`
	}
	if err := readJSON(resp, &doc); err != nil {
		return nil, err
	}
	if len(doc.Modules) == 0 {
		return nil, errInvalidAnswer
	}
	vs = []string{}
	for _, v := range doc.Modules[0].Versions {
		vs = append(vs, v.Version)
	}
	r.mu.Lock()
	if r.versions == nil {
		r.versions = map[RegistryPackage][]string{}
	}
	r.versions[p] = vs
	r.mu.Unlock()
	return vs, nil
}

// errInvalidAnswer: a versions list without modules.
var errInvalidAnswer = errors.New("the registry's versions list names no module")

// locate asks where version v of p is: the X-Terraform-Get header of an
// answer without content, or the JSON answer's location (with
// use_registry_credentials set, a package the registry serves itself).
func (r *registry) locate(ctx context.Context, p RegistryPackage, v, subdir string) (location, error) {
	u, err := r.endpoint(ctx, p, v, "download")
	if err != nil {
		return location{}, err
	}
	resp, err := r.get(ctx, u, p.Host)
	if err != nil {
		return location{}, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusNoContent:
		return indirect(resp.Header.Get("X-Terraform-Get"), subdir, u)
	case http.StatusOK:
	case http.StatusNotFound:
		return location{}, fmt.Errorf("module %q version %q not found", p, v)
	default:
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrBody))
		return location{}, fmt.Errorf("error getting download location for %q: %s resp:%s", p, resp.Status, strings.ToValidUTF8(string(b), "?"))
	}
	var doc struct {
		Location string `json:"location"`
		UseCreds *bool  `json:"use_registry_credentials"`
	}
	if err := readJSON(resp, &doc); err != nil {
		return location{}, fmt.Errorf("module %q version %q: %w", p, v, err)
	}
	if doc.UseCreds == nil {
		if doc.Location == "" {
			return indirect(resp.Header.Get("X-Terraform-Get"), subdir, u)
		}
		return indirect(doc.Location, subdir, u)
	}
	pu, err := url.Parse(doc.Location)
	if err != nil {
		return location{}, fmt.Errorf("registry returned an invalid package URL: %w", err)
	}
	pu = u.ResolveReference(pu)
	if pu.Scheme != "https" {
		return location{}, fmt.Errorf("%w: registry returned package URL %s: Kyku fetches modules over https only", ErrInsecure, pu.Redacted())
	}
	if pu.Fragment != "" {
		return location{}, fmt.Errorf("registry returned invalid package URL %q: must not include fragment part", doc.Location)
	}
	return location{direct: pu, subdir: subdir, useCreds: *doc.UseCreds}, nil
}

// indirect reads a go-getter address a registry answered (relative to
// the URL that answered when it starts with /, ./ or ../), which must be
// a remote package, and joins the call's subdirectory to its own.
func indirect(raw, subdir string, answered *url.URL) (location, error) {
	if raw == "" {
		return location{}, errors.New("registry did not return a location for this package")
	}
	if strings.HasPrefix(raw, "/") || strings.HasPrefix(raw, "./") || strings.HasPrefix(raw, "../") {
		ref, err := url.Parse(raw)
		if err != nil {
			return location{}, fmt.Errorf("invalid relative URL %q: %w", raw, err)
		}
		raw = answered.ResolveReference(ref).String()
	}
	src, err := ParseSource(raw)
	if err != nil {
		return location{}, fmt.Errorf("registry returned invalid package location %q: %w", raw, err)
	}
	if src.Kind != Remote {
		return location{}, fmt.Errorf("registry returned invalid package location %q: must be a direct remote package address", raw)
	}
	if subdir != "" {
		if src.Subdir != "" {
			src.Subdir = path.Join(src.Subdir, subdir)
		} else {
			src.Subdir = subdir
		}
	}
	return location{indirect: src}, nil
}

// get sends a GET to the registry's API on host: https only, redirects
// only on the host asked, its token when there is one and u is on host.
func (r *registry) get(ctx context.Context, u *url.URL, host string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	r.authorize(req, host)
	return tfinstall.HTTPSClient(r.http, true).Do(req)
}

// authorize adds host's token, if any, to req when req goes to host
// itself, and says whether it did.
func (r *registry) authorize(req *http.Request, host string) bool {
	return r.creds != nil && r.creds.Authorize(req, host)
}

func readJSON(resp *http.Response, out any) error {
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return fmt.Errorf("%s: %w", resp.Request.URL.Redacted(), err)
	}
	if len(b) > maxDocument {
		return fmt.Errorf("%s: larger than %d bytes", resp.Request.URL.Redacted(), maxDocument)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s: %w", resp.Request.URL.Redacted(), err)
	}
	return nil
}
