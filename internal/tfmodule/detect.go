package tfmodule

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"
)

// Remote addresses are go-getter's: OpenTofu runs go-getter's detectors
// (GitHub shorthand, scp-like git, Bitbucket, GCS, S3, absolute paths) to
// turn what was written into an address with a getter, and records that.
// Kyku detects the same way, so modules.json says what OpenTofu's says,
// but refuses at once the detections it does not fetch: Bitbucket's
// shorthand (OpenTofu asks Bitbucket's API over the network, during
// parsing, whether the repository is git), GCS and S3.

// ErrUnsupported is wrapped by the error of a source Kyku does not fetch.
var ErrUnsupported = errors.New("not supported")

// parseRemote reads a remote source: its package address after
// detection, and its subdirectory.
func parseRemote(raw string) (Source, error) {
	raw, subdir := splitSubdir(raw)
	if escapes(subdir) {
		return Source{}, fmt.Errorf("subdirectory path %q leads outside of the module package", subdir)
	}
	detected, err := detect(raw)
	if err != nil {
		return Source{}, err
	}
	pkg, more := splitSubdir(detected)
	if more != "" {
		if subdir != "" {
			subdir = path.Join(more, subdir)
		} else {
			subdir = more
		}
		if escapes(subdir) {
			return Source{}, fmt.Errorf("detected subdirectory path %q of %q leads outside of the module package", subdir, pkg)
		}
	}
	return Source{Kind: Remote, Package: pkg, Subdir: subdir}, nil
}

// forcedGetter splits "git::https://…" into "git" and "https://…".
func forcedGetter(src string) (getter, rest string) {
	g, rest, ok := strings.Cut(src, "::")
	if !ok || g == "" || rest == "" || strings.Trim(g, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
		return "", src
	}
	return g, rest
}

// rawSubdir is splitSubdir without cleaning, as go-getter's Detect has it.
func rawSubdir(src string) (string, string) {
	stop := len(src)
	if i := strings.Index(src, "?"); i >= 0 {
		stop = i
	}
	offset := 0
	if i := strings.Index(src[:stop], "://"); i >= 0 {
		offset = i + 3
	}
	i := strings.Index(src[offset:stop], "//")
	if i < 0 {
		return src, ""
	}
	i += offset
	pkg, subdir := src[:i], src[i+2:]
	if q := strings.Index(subdir, "?"); q >= 0 {
		pkg += subdir[q:]
		subdir = subdir[:q]
	}
	return pkg, subdir
}

// detect is go-getter's Detect with OpenTofu's detectors: an address
// with a scheme is kept as written; otherwise the first detector that
// recognizes it rewrites it.
func detect(src string) (string, error) {
	force, getSrc := forcedGetter(src)
	getSrc, subdir := rawSubdir(getSrc)
	if u, err := url.Parse(getSrc); err == nil && u.Scheme != "" {
		return src, nil
	}
	result, err := detectShorthand(getSrc)
	if err != nil {
		return "", err
	}
	detectForce, result := forcedGetter(result)
	result, detectSubdir := rawSubdir(result)
	if detectSubdir != "" {
		if subdir != "" {
			subdir = filepath.Join(detectSubdir, subdir)
		} else {
			subdir = detectSubdir
		}
	}
	if subdir != "" {
		u, err := url.Parse(result)
		if err != nil {
			return "", fmt.Errorf("parse %q: %w", result, err)
		}
		u.Path += "//" + subdir
		u.RawPath = u.Path
		result = u.String()
	}
	switch {
	case force != "":
		result = force + "::" + result
	case detectForce != "":
		result = detectForce + "::" + result
	}
	return result, nil
}

// detectShorthand runs the detectors in OpenTofu's order.
func detectShorthand(src string) (string, error) {
	if src == "" {
		return "", fmt.Errorf("invalid source string: %s", src)
	}
	// GitHub, its query set aside and put back.
	base, query, hasQuery := strings.Cut(src, "?")
	if strings.HasPrefix(base, "github.com/") {
		out, err := detectGitHub(base)
		if err != nil {
			return "", err
		}
		if hasQuery && query != "" {
			out += "?" + query
		}
		return out, nil
	}
	if out, ok, err := detectSCP(src); ok || err != nil {
		return out, err
	}
	switch {
	case strings.HasPrefix(src, "bitbucket.org/"):
		return "", fmt.Errorf("%w: Bitbucket shorthand %q (OpenTofu asks Bitbucket's API which kind of repository it is); write the repository's git URL: \"git::https://bitbucket.org/…\"", ErrUnsupported, src)
	case strings.Contains(src, ".googleapis.com/"):
		return "", fmt.Errorf("%w: Google Cloud Storage module source %q: Kyku fetches modules from registries, git (https, ssh) and https archives", ErrUnsupported, src)
	case strings.Contains(src, ".amazonaws.com/"):
		return "", fmt.Errorf("%w: S3 module source %q: Kyku fetches modules from registries, git (https, ssh) and https archives", ErrUnsupported, src)
	case filepath.IsAbs(src):
		return "file:///" + strings.TrimPrefix(src, "/"), nil
	}
	return "", &MaybeRelativeError{Addr: src}
}

// detectGitHub: "github.com/org/repo[/sub…]" is the repository over git
// and https.
func detectGitHub(src string) (string, error) {
	parts := strings.Split(src, "/")
	if len(parts) < 3 {
		return "", errors.New("GitHub URLs should be github.com/username/repo")
	}
	u, err := url.Parse("https://" + strings.Join(parts[:3], "/"))
	if err != nil {
		return "", fmt.Errorf("error parsing GitHub URL: %w", err)
	}
	if !strings.HasSuffix(u.Path, ".git") {
		u.Path += ".git"
	}
	if len(parts) > 3 {
		u.Path += "//" + strings.Join(parts[3:], "/")
	}
	return "git::" + u.String(), nil
}

// detectSCP: "git@host:path" is git over ssh (the user must be git).
func detectSCP(src string) (string, bool, error) {
	at := strings.IndexByte(src, '@')
	if at <= 0 {
		return "", false, nil
	}
	user := src[:at]
	host, p, ok := strings.Cut(src[at+1:], ":")
	p = strings.TrimPrefix(p, "/")
	if !ok || host == "" || p == "" || user != "git" {
		return "", false, nil
	}
	u := url.URL{Scheme: "ssh", User: url.User(user), Host: host, Path: p}
	if i := strings.Index(p, "?"); i >= 0 {
		q, err := url.ParseQuery(p[i+1:])
		if err != nil {
			return "", true, fmt.Errorf("error parsing GitHub SSH URL: %w", err)
		}
		u.Path, u.RawQuery = p[:i], q.Encode()
	}
	return "git::" + u.String(), true, nil
}
