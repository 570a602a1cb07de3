package tfinstall

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	version "github.com/hashicorp/go-version"
)

// Installer finds and checks providers: from a filesystem mirror when one
// is set (then only from it: no network), otherwise from each provider's
// registry into a cache directory. Every package it hands out matches the
// lock file's hashes for it, or is new to the lock and recorded there.
type Installer struct {
	// Mirror is a filesystem mirror (KYKU_PLUGIN_MIRROR), unpacked or
	// packed (mirror.go); empty for none. A packed one's packages are
	// unpacked into CacheDir.
	Mirror string
	// CacheDir holds the packages fetched from registries, each under the
	// hash of its content; a run reuses what matches the lock. It may be
	// shared by Installers of different locks, at the same time.
	CacheDir string
	// Registry fetches packages when there is no mirror.
	Registry *Registry
	// LinkMirror, with a Mirror, also links each package it installs from
	// the mirror into CacheDir under its hash (a symbolic link, as
	// OpenTofu's init does for an unpacked mirror), so that later runs
	// without the mirror use it instead of asking its registry: `kyku
	// init` sets it; plan and apply, which write nothing there, do not.
	LinkMirror bool
	// Platform is the one to install for.
	Platform Platform
}

// Requirement is a provider the configuration asks for.
type Requirement struct {
	Source      Source
	Constraints Constraints
}

// Installed is a provider ready to launch.
type Installed struct {
	Source     Source
	Version    string
	Dir        string // the unpacked package
	Executable string // its program
}

// ChecksumError is a package that matches none of the lock's hashes: a
// changed or different binary. It is refused.
type ChecksumError struct {
	Source  Source
	Version string
	Where   string
	Got     []Hash
	// Lock is the lock file's name ("": LockFileName).
	Lock string
}

func (e *ChecksumError) Error() string {
	lock := e.Lock
	if lock == "" {
		lock = LockFileName
	}
	return fmt.Sprintf("provider %s %s: the package in %s matches none of the hashes in %s (it has %s): refused; if the change is wanted, run \"kyku init --upgrade\"",
		e.Source, e.Version, e.Where, lock, joinHashes(e.Got))
}

// ErrLockedVersion is a locked version the configuration's constraint no
// longer allows.
var ErrLockedVersion = errors.New("the locked version does not satisfy the configured constraint")

// Install makes every required provider available and checks it against
// lock, which it updates: new providers are recorded, those no longer
// required dropped. With upgrade, locked versions are ignored and the
// newest allowed is chosen (its hashes then replace the old ones).
// Requirements are handled in order; the first failure stops it.
func (in *Installer) Install(ctx context.Context, reqs []Requirement, lock *Lock, upgrade bool) ([]Installed, error) {
	if lock.Providers == nil {
		lock.Providers = map[Source]*Locked{}
	}
	required := map[Source]bool{}
	var out []Installed
	for _, r := range reqs {
		required[r.Source] = true
		got, err := in.install(ctx, r, lock, upgrade)
		if err != nil {
			return nil, err
		}
		out = append(out, got)
	}
	for s := range lock.Providers {
		if !required[s] {
			delete(lock.Providers, s)
		}
	}
	return out, nil
}

func (in *Installer) install(ctx context.Context, r Requirement, lock *Lock, upgrade bool) (Installed, error) {
	src := r.Source
	locked := lock.Providers[src]
	if upgrade {
		locked = nil
	}
	var v *version.Version
	if locked != nil {
		lv, err := version.NewVersion(locked.Version)
		if err != nil {
			return Installed{}, fmt.Errorf("provider %s: locked version %q: %w", src, locked.Version, err)
		}
		if !r.Constraints.Allows(lv) {
			return Installed{}, fmt.Errorf("provider %s: locked version %s, constraint %q: %w; run \"kyku init --upgrade\"",
				src, locked.Version, r.Constraints, ErrLockedVersion)
		}
		v = lv
		if locked.CarriedOver {
			locked = nil // carried over: its version, hashes of its own
		}
	}
	if in.Mirror != "" {
		return in.fromMirror(src, r.Constraints, v, locked, lock)
	}
	return in.fromRegistry(ctx, src, r.Constraints, v, locked, lock)
}

func (in *Installer) fromMirror(src Source, c Constraints, v *version.Version, locked *Locked, lock *Lock) (Installed, error) {
	pkgs, err := mirror{dir: in.Mirror}.packages(src, in.Platform)
	if err != nil {
		return Installed{}, err
	}
	if v == nil {
		vs := versionsOf(pkgs)
		if v = c.newest(vs); v == nil {
			return Installed{}, fmt.Errorf("provider %s: no version allowed by %q for %s in the mirror %s (it has %s)",
				src, c, in.Platform, in.Mirror, joinVersions(vs))
		}
	}
	pkg, ok := find(pkgs, v)
	if !ok {
		return Installed{}, fmt.Errorf("provider %s %s: not in the mirror %s for %s", src, v.Original(), in.Mirror, in.Platform)
	}
	if pkg.archive != "" {
		return in.fromMirrorArchive(src, c, v, pkg.archive, locked, lock)
	}
	dir := pkg.dir
	h1, err := HashDir(dir)
	if err != nil {
		return Installed{}, err
	}
	if locked != nil && !locked.Matches(h1) {
		return Installed{}, &ChecksumError{Source: src, Version: v.Original(), Where: dir, Got: []Hash{h1}}
	}
	if in.LinkMirror && in.CacheDir != "" {
		if err := (providerCache{dir: in.CacheDir}).link(dir, src, v, in.Platform, h1); err != nil {
			return Installed{}, fmt.Errorf("provider %s %s: %w", src, v.Original(), err)
		}
	}
	return in.record(src, c, v, dir, locked, lock, h1)
}

// fromMirrorArchive installs a packed mirror's archive into the cache, as
// OpenTofu installs one: it must match one of the lock's hashes, zh (the
// archive's SHA-256) or h1 (its files, unpacked into a directory of their
// own and removed when refused); the lock records the h1 hash. A cached
// package matching the lock is used without reading the archive.
func (in *Installer) fromMirrorArchive(src Source, c Constraints, v *version.Version, archive string, locked *Locked, lock *Lock) (Installed, error) {
	if in.CacheDir == "" {
		return Installed{}, fmt.Errorf("provider %s %s: the mirror holds it packed (%s) and there is no cache directory to unpack it into", src, v.Original(), archive)
	}
	cache := providerCache{dir: in.CacheDir}
	if locked != nil {
		if dir, h1, ok := cache.find(src, v, in.Platform, locked); ok {
			return in.record(src, c, v, dir, locked, lock, h1)
		}
	}
	sum, err := fileSHA256(archive)
	if err != nil {
		return Installed{}, fmt.Errorf("provider %s %s: %w", src, v.Original(), err)
	}
	zh := zipHash(sum)
	pkg, tmp, err := cache.unpackTemp(archive, src, v, in.Platform)
	if err != nil {
		return Installed{}, fmt.Errorf("provider %s %s: %s: %w", src, v.Original(), archive, err)
	}
	defer os.RemoveAll(tmp)
	h1, err := HashDir(pkg)
	if err != nil {
		return Installed{}, err
	}
	if locked != nil && !locked.Matches(h1, zh) {
		return Installed{}, &ChecksumError{Source: src, Version: v.Original(), Where: archive, Got: []Hash{h1, zh}}
	}
	dir, err := cache.put(pkg, src, v, in.Platform, h1)
	if err != nil {
		return Installed{}, fmt.Errorf("provider %s %s: %w", src, v.Original(), err)
	}
	return in.record(src, c, v, dir, locked, lock, h1)
}

func (in *Installer) fromRegistry(ctx context.Context, src Source, c Constraints, v *version.Version, locked *Locked, lock *Lock) (Installed, error) {
	if in.CacheDir == "" {
		return Installed{}, fmt.Errorf("provider %s: no mirror and no cache directory to install it into", src)
	}
	cache := providerCache{dir: in.CacheDir}
	// A cached package that matches the lock is used as it is (a link to
	// a mirror's package, left by kyku init, is followed). A locked
	// provider has its version (v) already.
	if locked != nil {
		if dir, h1, ok := cache.find(src, v, in.Platform, locked); ok {
			return in.record(src, c, v, dir, locked, lock, h1)
		}
	}
	if in.Registry == nil {
		return Installed{}, fmt.Errorf("provider %s: no mirror and no registry to install it from", src)
	}
	if v == nil {
		listed, err := in.Registry.versions(ctx, src, in.Platform)
		if err != nil {
			return Installed{}, forSource(src, err)
		}
		vs := parseVersions(listed)
		if v = c.newest(vs); v == nil {
			return Installed{}, fmt.Errorf("provider %s: no version allowed by %q for %s in its registry (it has %s)",
				src, c, in.Platform, joinVersions(vs))
		}
	}
	if err := os.MkdirAll(in.CacheDir, 0o755); err != nil {
		return Installed{}, fmt.Errorf("provider cache: %w", err)
	}
	f, err := in.Registry.fetch(ctx, src, v.Original(), in.Platform, in.CacheDir)
	if err != nil {
		return Installed{}, forSource(src, err)
	}
	defer os.Remove(f.archive)
	// A locked provider must be the package the lock names: checked on
	// the archive before anything of it is unpacked (a lock of h1 hashes
	// only, written from a mirror, is checked on the unpacked files).
	const where = "its registry's archive"
	if locked != nil && hasKind(locked.Hashes, "zh") && !locked.Matches(f.zh) {
		return Installed{}, &ChecksumError{Source: src, Version: v.Original(), Where: where, Got: []Hash{f.zh}}
	}
	// Unpacked into a directory of its own, and refused from there: the
	// cache's packages, which other locks may trust, are never touched.
	pkg, tmp, err := cache.unpackTemp(f.archive, src, v, in.Platform)
	if err != nil {
		return Installed{}, fmt.Errorf("provider %s %s: %w", src, v.Original(), err)
	}
	defer os.RemoveAll(tmp)
	h1, err := HashDir(pkg)
	if err != nil {
		return Installed{}, err
	}
	if locked != nil && !locked.Matches(h1, f.zh) {
		return Installed{}, &ChecksumError{Source: src, Version: v.Original(), Where: where, Got: []Hash{h1, f.zh}}
	}
	dir, err := cache.put(pkg, src, v, in.Platform, h1)
	if err != nil {
		return Installed{}, fmt.Errorf("provider %s %s: %w", src, v.Original(), err)
	}
	return in.record(src, c, v, dir, locked, lock, append([]Hash{h1}, f.all...)...)
}

// record finds the package's executable and writes the lock entry.
func (in *Installer) record(src Source, c Constraints, v *version.Version, dir string, locked *Locked, lock *Lock, hashes ...Hash) (Installed, error) {
	exe, err := findExecutable(dir, src)
	if err != nil {
		return Installed{}, fmt.Errorf("provider %s %s: %w", src, v.Original(), err)
	}
	entry := locked
	if entry == nil {
		entry = &Locked{Version: v.Original()}
	}
	entry.Constraints = c.String()
	entry.addHashes(hashes...)
	lock.Providers[src] = entry
	return Installed{Source: src, Version: v.Original(), Dir: dir, Executable: exe}, nil
}

func hasKind(hs []Hash, kind string) bool {
	for _, h := range hs {
		if h.Kind() == kind {
			return true
		}
	}
	return false
}

func joinHashes(hs []Hash) string {
	s := make([]string, len(hs))
	for i, h := range hs {
		s[i] = string(h)
	}
	return strings.Join(s, ", ")
}

func joinVersions(vs []*version.Version) string {
	if len(vs) == 0 {
		return "none"
	}
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.Original()
	}
	return strings.Join(s, ", ")
}

// CacheDirOf is where packages fetched for the configuration in dir are
// kept unless the caller says otherwise.
func CacheDirOf(dir string) string { return filepath.Join(dir, ".kyku-state", "providers") }
