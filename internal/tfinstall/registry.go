package tfinstall

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
)

// Registry is a client of the provider registry protocol: service
// discovery (/.well-known/terraform.json, "providers.v1"), the versions of
// a provider, and the download of a package, whose SHA256SUMS must carry
// a signature by one of the keys the registry names for it and list the
// package's checksum. Only HTTPS is spoken, redirects included, and the
// registry's API answers from its own host (redirects.go). Safe for
// concurrent use.
type Registry struct {
	// Client makes the requests (its timeouts and proxies are the
	// caller's; tests pass an httptest TLS server's client).
	Client *http.Client
	// Credentials, when set, adds a registry host's token to the
	// requests that go to that host itself (credentials.go).
	Credentials Authorizer
	// Verify checks a detached OpenPGP signature of signed against
	// ASCII-armored keys (pgpverify.Verify; badKey: the index of a key it
	// could not read, or -1). nil: nothing from a registry is trusted, so
	// every download is refused (the kyku executable does not link
	// OpenPGP; kyku-engine does).
	Verify func(signed, sig []byte, armoredKeys []string) (badKey int, err error)

	mu       sync.Mutex
	services map[string]*url.URL
}

// Limits on what a registry may send.
const (
	maxDocument  = 8 << 20 // a JSON answer, SHA256SUMS
	maxSignature = 64 << 10
	maxArchive   = 2 << 30
)

// registryVersion is one entry of the versions list.
type registryVersion struct {
	Version   string   `json:"version"`
	Protocols []string `json:"protocols"`
	Platforms []struct {
		OS   string `json:"os"`
		Arch string `json:"arch"`
	} `json:"platforms"`
}

// supported: a version whose protocols include 5 or 6 (a list without
// protocols is taken as the registry not saying), built for p (the zero
// Platform: for any).
func (v registryVersion) supported(p Platform) bool {
	proto := len(v.Protocols) == 0
	for _, s := range v.Protocols {
		major, _, _ := strings.Cut(s, ".")
		proto = proto || major == "5" || major == "6"
	}
	if !proto {
		return false
	}
	for _, pl := range v.Platforms {
		if p == (Platform{}) || pl.OS == p.OS && pl.Arch == p.Arch {
			return true
		}
	}
	return false
}

// downloadInfo is the answer of the download endpoint.
type downloadInfo struct {
	Protocols           []string `json:"protocols"`
	OS                  string   `json:"os"`
	Arch                string   `json:"arch"`
	Filename            string   `json:"filename"`
	DownloadURL         string   `json:"download_url"`
	ShasumsURL          string   `json:"shasums_url"`
	ShasumsSignatureURL string   `json:"shasums_signature_url"`
	Shasum              string   `json:"shasum"`
	SigningKeys         struct {
		GPGPublicKeys []struct {
			KeyID      string `json:"key_id"`
			ASCIIArmor string `json:"ascii_armor"`
		} `json:"gpg_public_keys"`
	} `json:"signing_keys"`
}

// providersURL discovers the host's provider registry service.
func (r *Registry) providersURL(ctx context.Context, host string) (*url.URL, error) {
	r.mu.Lock()
	u, ok := r.services[host]
	r.mu.Unlock()
	if ok {
		return u, nil
	}
	disco := &url.URL{Scheme: "https", Host: host, Path: "/.well-known/terraform.json"}
	var doc map[string]any
	answered, err := r.getJSON(ctx, disco, &doc, host)
	if err != nil {
		return nil, fmt.Errorf("discover the registry of %s: %w", host, err)
	}
	s, ok := doc["providers.v1"].(string)
	if !ok || s == "" {
		return nil, fmt.Errorf("discover the registry of %s: the host offers no provider registry (providers.v1)", host)
	}
	u, err = resolve(answered, s)
	if err != nil {
		return nil, fmt.Errorf("discover the registry of %s: %w", host, err)
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

// resolve resolves ref against base and refuses anything but HTTPS.
func resolve(base *url.URL, ref string) (*url.URL, error) {
	u, err := base.Parse(ref)
	if err != nil {
		return nil, fmt.Errorf("bad URL %q: %w", ref, err)
	}
	if u.Scheme != "https" {
		return nil, fmt.Errorf("refused URL %q: only https is allowed", u.Redacted())
	}
	return u, nil
}

// versions lists the provider's versions usable on p.
func (r *Registry) versions(ctx context.Context, src Source, p Platform) ([]string, error) {
	base, err := r.providersURL(ctx, src.Host)
	if err != nil {
		return nil, err
	}
	u, err := resolve(base, url.PathEscape(src.Namespace)+"/"+url.PathEscape(src.Type)+"/versions")
	if err != nil {
		return nil, err
	}
	var doc struct {
		Versions []registryVersion `json:"versions"`
	}
	if _, err := r.getJSON(ctx, u, &doc, src.Host); err != nil {
		return nil, fmt.Errorf("list versions of %s: %w", src, err)
	}
	var out []string
	for _, v := range doc.Versions {
		if v.supported(p) {
			out = append(out, v.Version)
		}
	}
	return out, nil
}

// fetched is a downloaded, verified archive.
type fetched struct {
	archive string // a temporary file, the caller removes it
	zh      Hash   // the archive's
	all     []Hash // zh of every package of this version, from the signed SHA256SUMS
}

// fetch downloads the package of version v for p and checks it: the
// SHA256SUMS document signed by one of the registry's keys for it, the
// archive's checksum listed there and equal to the one announced, and
// the archive's bytes matching it.
func (r *Registry) fetch(ctx context.Context, src Source, v string, p Platform, tmpDir string) (*fetched, error) {
	base, err := r.providersURL(ctx, src.Host)
	if err != nil {
		return nil, err
	}
	u, err := resolve(base, url.PathEscape(src.Namespace)+"/"+url.PathEscape(src.Type)+"/"+url.PathEscape(v)+
		"/download/"+url.PathEscape(p.OS)+"/"+url.PathEscape(p.Arch))
	if err != nil {
		return nil, err
	}
	var info downloadInfo
	answered, err := r.getJSON(ctx, u, &info, src.Host)
	if err != nil {
		return nil, fmt.Errorf("download %s %s: %w", src, v, err)
	}
	fail := func(format string, args ...any) (*fetched, error) {
		return nil, fmt.Errorf("download %s %s: "+format, append([]any{src, v}, args...)...)
	}
	if info.Filename == "" || strings.ContainsAny(info.Filename, `/\`) {
		return fail("bad package file name %q", info.Filename)
	}
	// URLs in the answer are relative to the URL that answered.
	sumsURL, err := resolve(answered, info.ShasumsURL)
	if err != nil {
		return fail("%w", err)
	}
	sigURL, err := resolve(answered, info.ShasumsSignatureURL)
	if err != nil {
		return fail("%w", err)
	}
	archiveURL, err := resolve(answered, info.DownloadURL)
	if err != nil {
		return fail("%w", err)
	}
	sums, err := r.get(ctx, sumsURL, maxDocument, fileRequest, src.Host)
	if err != nil {
		return fail("SHA256SUMS: %w", err)
	}
	sig, err := r.get(ctx, sigURL, maxSignature, fileRequest, src.Host)
	if err != nil {
		return fail("SHA256SUMS signature: %w", err)
	}
	if err := r.verifySignature(sums, sig, info); err != nil {
		return fail("%w", err)
	}
	listed, all, err := parseSums(sums, info.Filename)
	if err != nil {
		return fail("%w", err)
	}
	if !strings.EqualFold(listed, info.Shasum) {
		return fail("the signed SHA256SUMS lists %s for %s, the registry announced %s", listed, info.Filename, info.Shasum)
	}
	f, err := os.CreateTemp(tmpDir, ".download-*.zip")
	if err != nil {
		return fail("%w", err)
	}
	sum, err := r.download(ctx, archiveURL, f, src.Host)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return fail("%w", err)
	}
	if got := hex.EncodeToString(sum); !strings.EqualFold(got, listed) {
		os.Remove(f.Name())
		return fail("the archive's SHA-256 is %s, the signed SHA256SUMS says %s", got, listed)
	}
	return &fetched{archive: f.Name(), zh: zipHash(sum), all: all}, nil
}

// verifySignature checks the detached signature of SHA256SUMS against
// the keys the registry names for the provider. Without keys nothing is
// trusted: refused.
func (r *Registry) verifySignature(sums, sig []byte, info downloadInfo) error {
	keys := info.SigningKeys.GPGPublicKeys
	if len(keys) == 0 {
		return errors.New("the registry names no signing key: the package cannot be verified")
	}
	if r.Verify == nil {
		return errors.New("verifying the signature of SHA256SUMS needs OpenPGP, which this program does not link (kyku-engine, installed beside kyku, does: install Kyku as docs/install.md says)")
	}
	armored := make([]string, len(keys))
	for i, k := range keys {
		armored[i] = k.ASCIIArmor
	}
	bad, err := r.Verify(sums, sig, armored)
	switch {
	case bad >= 0 && bad < len(keys):
		return fmt.Errorf("signing key %s: %w", keys[bad].KeyID, err)
	case err != nil:
		return fmt.Errorf("the signature of SHA256SUMS does not verify with the registry's keys: %w", err)
	}
	return nil
}

// parseSums reads SHA256SUMS ("<hex>  <file name>" lines): the checksum
// of file, and the zh hash of every zip archive listed.
func parseSums(sums []byte, file string) (string, []Hash, error) {
	var listed string
	var all []Hash
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		sum, name, ok := strings.Cut(line, "  ")
		if b, err := hex.DecodeString(sum); !ok || err != nil || len(b) != sha256.Size {
			return "", nil, fmt.Errorf("malformed SHA256SUMS line %q", line)
		}
		name = strings.TrimPrefix(strings.TrimSpace(name), "*")
		if name == file {
			listed = strings.ToLower(sum)
		}
		if strings.HasSuffix(name, ".zip") {
			all = append(all, Hash("zh:"+strings.ToLower(sum)))
		}
	}
	if listed == "" {
		return "", nil, fmt.Errorf("the signed SHA256SUMS does not list %s", file)
	}
	return listed, all, nil
}

// getJSON reads a JSON answer of the registry's API into out and returns
// the URL that answered (u, or where u redirected on its host).
func (r *Registry) getJSON(ctx context.Context, u *url.URL, out any, host string) (*url.URL, error) {
	resp, err := r.open(ctx, u, apiRequest, host)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := readAtMost(resp, u, maxDocument)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, out); err != nil {
		return nil, fmt.Errorf("%s: %w", u.Redacted(), err)
	}
	return resp.Request.URL, nil
}

// open sends a GET for u, with the token of the registry host when u is
// on that host; kind decides which redirects are followed (redirects.go).
func (r *Registry) open(ctx context.Context, u *url.URL, kind requestKind, host string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	authorized := r.Credentials != nil && r.Credentials.Authorize(req, host)
	resp, err := kind.client(r.Client).Do(req)
	if err != nil {
		if ue, ok := unreachable(u.Host, err); ok {
			return nil, ue
		}
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusNotFound:
			return nil, fmt.Errorf("%s: not found", u.Redacted())
		case http.StatusUnauthorized, http.StatusForbidden:
			if kind == apiRequest {
				return nil, unauthorized(host, authorized)
			}
		}
		return nil, fmt.Errorf("%s: %s", u.Redacted(), resp.Status)
	}
	return resp, nil
}

func (r *Registry) get(ctx context.Context, u *url.URL, limit int64, kind requestKind, host string) ([]byte, error) {
	resp, err := r.open(ctx, u, kind, host)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return readAtMost(resp, u, limit)
}

// readAtMost reads resp's body, refusing one over limit bytes.
func readAtMost(resp *http.Response, u *url.URL, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", u.Redacted(), err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", u.Redacted(), limit)
	}
	return b, nil
}

// download copies the archive to w and returns its SHA-256.
func (r *Registry) download(ctx context.Context, u *url.URL, w io.Writer, host string) ([]byte, error) {
	resp, err := r.open(ctx, u, fileRequest, host)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(resp.Body, maxArchive+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", u.Redacted(), err)
	}
	if n > maxArchive {
		return nil, fmt.Errorf("%s: larger than %d bytes", u.Redacted(), int64(maxArchive))
	}
	return h.Sum(nil), nil
}
