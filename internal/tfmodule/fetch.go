package tfmodule

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// ErrInsecure is wrapped by the error of a source or location Kyku will
// not fetch from because the way there is not private and checked: plain
// http, git's unauthenticated protocol.
var ErrInsecure = errors.New("refused")

// fetcher fetches whole packages into directories. It remembers where it
// put each package this run and copies that instead of fetching it
// again, as OpenTofu does.
type fetcher struct {
	in   *Installer
	done map[string]string // package address → the directory it is in
}

// maxTerraformGet bounds the chain of X-Terraform-Get answers.
const maxTerraformGet = 10

// fetch puts the package at addr (a Remote source's Package) into dst,
// which must not exist.
func (f *fetcher) fetch(ctx context.Context, addr, dst string) error {
	if prev, ok := f.done[addr]; ok {
		if err := copyTree(prev, dst); err != nil {
			return fmt.Errorf("copy %s from %s: %w", redact(addr), prev, err)
		}
		return nil
	}
	if err := f.get(ctx, addr, dst, 0); err != nil {
		os.RemoveAll(dst)
		return err
	}
	if f.done == nil {
		f.done = map[string]string{}
	}
	f.done[addr] = dst
	return nil
}

// get fetches addr into dst by its getter; hops counts X-Terraform-Get
// answers followed.
func (f *fetcher) get(ctx context.Context, addr, dst string, hops int) error {
	force, rest := forcedGetter(addr)
	u, err := url.Parse(rest)
	if err != nil {
		return fmt.Errorf("parse %s: %w", redact(addr), err)
	}
	getter := force
	if getter == "" {
		getter = u.Scheme
	}
	switch getter {
	case "git":
		return f.in.Git.get(ctx, u, dst)
	case "https":
		if u.Scheme != "https" {
			return fmt.Errorf("%w: %s: the https getter with a %s URL", ErrInsecure, redact(addr), u.Scheme)
		}
		return f.https(ctx, u, dst, hops)
	case "http":
		return fmt.Errorf("%w: %s: a module is code, and plain http lets anyone on the way change it; use https", ErrInsecure, u.Redacted())
	case "file":
		if hops > 0 {
			return errAnsweredFile(addr)
		}
		return f.file(u, dst)
	case "s3", "gcs", "hg", "oci":
		return fmt.Errorf("%w: %s: Kyku fetches modules from registries, git (https, ssh) and https archives, not from %s", ErrUnsupported, redact(addr), getter)
	}
	return fmt.Errorf("%w: download not supported for scheme %q", ErrUnsupported, getter)
}

// errAnsweredFile refuses a path on this machine named by a registry's or
// a server's answer: what a remote answer names is remote.
func errAnsweredFile(addr string) error {
	return fmt.Errorf("%w: %s: a registry's or a server's answer may not name a path on this machine", ErrInsecure, redact(addr))
}

// fetchAnswered is fetch of an address a registry answered.
func (f *fetcher) fetchAnswered(ctx context.Context, addr, dst string) error {
	if g, rest := forcedGetter(addr); g == "file" || g == "" && strings.HasPrefix(rest, "file:") {
		return errAnsweredFile(addr)
	}
	return f.fetch(ctx, addr, dst)
}

// file links dst to the directory an absolute path names, as go-getter's
// file getter does; with a Boundary, only a directory within it.
func (f *fetcher) file(u *url.URL, dst string) error {
	p := u.Path
	if u.RawPath != "" {
		p = u.RawPath
	}
	real, err := realPath(p)
	if err != nil {
		return fmt.Errorf("source path error: %w", err)
	}
	if info, err := os.Stat(real); err != nil || !info.IsDir() {
		return errors.New("source path must be a directory")
	}
	if b := f.in.boundary; b != "" && !within(b, real) {
		return fmt.Errorf("%w: %s is outside the repository (%s): a module call may not read the runner's files", ErrInsecure, p, b)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.Symlink(real, dst)
}

// redact hides a password in an address's URL.
func redact(addr string) string {
	force, rest := forcedGetter(addr)
	u, err := url.Parse(rest)
	if err != nil || u.User == nil {
		return addr
	}
	if force != "" {
		return force + "::" + u.Redacted()
	}
	return u.Redacted()
}

// subdirOf is the module's directory in the package at dir: subdir, whose
// glob (a registry's "*" for an archive's one top directory) must match
// exactly one path.
func subdirOf(dir, subdir string) (string, error) {
	if subdir == "" {
		return dir, nil
	}
	matches, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(subdir)))
	if err != nil {
		return "", err
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("subdir %q not found", subdir)
	case 1:
		return matches[0], nil
	}
	return "", fmt.Errorf("subdir %q matches multiple paths", subdir)
}

// hasDotDot: a path with a ".." element.
func hasDotDot(p string) bool {
	for _, e := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if e == ".." {
			return true
		}
	}
	return false
}
