package tfinstall

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	version "github.com/hashicorp/go-version"
)

// providerCache is the directory packages fetched from registries are kept
// in, shared by every run (and, in the bot, every tenant) that names it.
// Each package is stored under the hash of its content:
//
//	HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/h1-<hex of the h1 digest>/terraform-provider-…
//
// so that what one lock trusts and what another refuses never share a
// directory. A package appears whole (unpacked beside it, then renamed)
// and is never changed or removed by Kyku, except an entry whose content no
// longer matches its name (changed behind Kyku's back): no lock can trust
// it under that name, so it is moved aside and replaced. A refused package
// is removed from its own temporary directory only. Several installers
// (goroutines or processes) may share the directory.
type providerCache struct{ dir string }

func (c providerCache) platformDir(src Source, v *version.Version, p Platform) string {
	return mirror(c).packageDir(src, v, p)
}

// entry is where the package whose h1 hash is h lives; false when h is
// not a well-formed h1 hash.
func (c providerCache) entry(src Source, v *version.Version, p Platform, h Hash) (string, bool) {
	kind, body, _ := strings.Cut(string(h), ":")
	if kind != "h1" {
		return "", false
	}
	sum, err := base64.StdEncoding.DecodeString(body)
	if err != nil || len(sum) != sha256.Size {
		return "", false
	}
	return filepath.Join(c.platformDir(src, v, p), "h1-"+hex.EncodeToString(sum)), true
}

// find returns a cached package matching one of locked's h1 hashes (a link
// to a mirror's package is followed), with that hash. An entry found
// whose content no longer matches its name is moved aside.
func (c providerCache) find(src Source, v *version.Version, p Platform, locked *Locked) (string, Hash, bool) {
	for _, h := range locked.Hashes {
		path, ok := c.entry(src, v, p, h)
		if !ok {
			continue
		}
		if dir, ok := verified(path, h); ok {
			return dir, h, true
		}
	}
	return "", "", false
}

// verified reports whether the entry at path holds the package whose h1
// hash is h, and the directory holding it. An entry that holds something
// else (or a link to nothing) is moved aside; one that cannot be read now
// (another installer moving it aside) is left alone.
func verified(path string, h Hash) (string, bool) {
	before, err := os.Lstat(path)
	if err != nil {
		return "", false
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		retire(path, before) // a link to nothing
		return "", false
	}
	got, err := HashDir(real)
	if err != nil {
		return "", false
	}
	if got == h {
		return real, true
	}
	retire(path, before)
	return "", false
}

// retire moves the entry at path aside and removes it (a link is removed,
// never what it points to), unless path is no longer the entry seen
// (another installer replaced it). Renaming first frees the name at once.
func retire(path string, seen os.FileInfo) {
	if now, err := os.Lstat(path); err != nil || !os.SameFile(seen, now) {
		return
	}
	aside, err := os.MkdirTemp(filepath.Dir(path), ".stale-*")
	if err != nil {
		return
	}
	if err := os.Rename(path, filepath.Join(aside, "pkg")); err != nil {
		os.Remove(aside)
		return
	}
	os.RemoveAll(aside)
}

// put moves the package unpacked at tmp, whose h1 hash is h, to its entry
// and returns the entry. An entry already holding that package (another
// installer's, at the same time) is used as it is.
func (c providerCache) put(tmp string, src Source, v *version.Version, p Platform, h Hash) (string, error) {
	path, ok := c.entry(src, v, p, h)
	if !ok {
		return "", fmt.Errorf("provider cache: %q is not an h1 hash", h)
	}
	for range 3 {
		err := os.Rename(tmp, path)
		if err == nil {
			return path, nil
		}
		if _, lerr := os.Lstat(path); lerr != nil {
			return "", fmt.Errorf("provider cache: %w", err)
		}
		if dir, ok := verified(path, h); ok {
			return dir, nil
		}
	}
	return "", fmt.Errorf("provider cache: %s keeps changing under Kyku", path)
}

// unpackTemp unpacks archive into a new temporary directory under the
// cache's platform directory of the package and returns the package's
// directory and the temporary one, which the caller removes.
func (c providerCache) unpackTemp(archive string, src Source, v *version.Version, p Platform) (pkg, tmp string, err error) {
	parent := c.platformDir(src, v, p)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", "", fmt.Errorf("provider cache: %w", err)
	}
	tmp, err = os.MkdirTemp(parent, ".fetch-*")
	if err != nil {
		return "", "", fmt.Errorf("provider cache: %w", err)
	}
	pkg = filepath.Join(tmp, "pkg")
	if err := unzip(archive, pkg); err != nil {
		os.RemoveAll(tmp)
		return "", "", err
	}
	return pkg, tmp, nil
}

// link makes the cache's entry for the mirror's package target (whose h1
// hash is h) a symbolic link to it, unless the entry already holds that
// package; the link appears whole or not at all.
func (c providerCache) link(target string, src Source, v *version.Version, p Platform, h Hash) error {
	path, ok := c.entry(src, v, p, h)
	if !ok {
		return fmt.Errorf("link into the provider cache: %q is not an h1 hash", h)
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		return fmt.Errorf("link into the provider cache: %w", err)
	}
	if _, ok := verified(path, h); ok {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("link into the provider cache: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(path), ".link-*")
	if err != nil {
		return fmt.Errorf("link into the provider cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	l := filepath.Join(tmp, "link")
	if err := os.Symlink(abs, l); err != nil {
		return fmt.Errorf("link into the provider cache: %w", err)
	}
	if err := os.Rename(l, path); err != nil {
		if _, ok := verified(path, h); ok {
			return nil // another installer's, holding the same package
		}
		return fmt.Errorf("link into the provider cache: %w", err)
	}
	return nil
}
