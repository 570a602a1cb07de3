package tfinstall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	version "github.com/hashicorp/go-version"
)

// MirrorWriter fills a directory with the packages a configuration
// requires, from their registries, in the packed layout `tofu providers
// mirror` writes (mirror.go): HOST/NAMESPACE/TYPE/ holding
// terraform-provider-TYPE_VERSION_OS_ARCH.zip, index.json ({"versions":
// {VERSION: {}}}) and VERSION.json ({"archives": {OS_ARCH: {"url": the
// archive's name, "hashes": […]}}}), so that the directory serves as a
// filesystem mirror (KYKU_PLUGIN_MIRROR) and, published as it is, as a
// network mirror. Every archive is checked as Install checks a download
// (the registry's signature) before it appears under its name.
type MirrorWriter struct {
	Dir       string
	Registry  *Registry
	Platforms []Platform

	h1 map[string]Hash // of the archives Write fetched, by path
}

// Mirrored is what Write put into the mirror for one provider.
type Mirrored struct {
	Source    Source
	Version   string
	Platforms []Platform
}

// Write mirrors every requirement: for each, the version lock names when
// lock has entries (as `tofu providers mirror` does; a provider the lock
// lacks is an error), else the newest its constraint allows; then, for
// every platform, its archive. A locked version's archive must match one
// of the lock's zh hashes when the lock has any. A failure does not stop
// the others (what was mirrored is returned with the joined errors), and
// each provider's index files list every archive of its directory, those
// mirrored before included.
func (w *MirrorWriter) Write(ctx context.Context, reqs []Requirement, lock *Lock) ([]Mirrored, error) {
	var out []Mirrored
	var errs []error
	w.h1 = map[string]Hash{}
	for _, r := range reqs {
		got, err := w.mirror(ctx, r, lock)
		if len(got.Platforms) > 0 {
			out = append(out, got)
		}
		errs = append(errs, err)
		if err := w.writeIndex(r.Source); err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

func (w *MirrorWriter) mirror(ctx context.Context, r Requirement, lock *Lock) (Mirrored, error) {
	src := r.Source
	v, locked, err := w.choose(ctx, r, lock)
	if err != nil {
		return Mirrored{}, err
	}
	got := Mirrored{Source: src, Version: v.Original()}
	if err := os.MkdirAll(w.Dir, 0o755); err != nil {
		return got, fmt.Errorf("mirror %s: %w", src, err)
	}
	dir := mirror{dir: w.Dir}.providerDir(src)
	var errs []error
	for _, p := range w.Platforms {
		err := w.fetch(ctx, src, v, p, dir, locked)
		var ue *UnreachableError
		if errors.As(err, &ue) {
			return got, err // the same for every platform: said once
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		got.Platforms = append(got.Platforms, p)
	}
	return got, errors.Join(errs...)
}

// choose is the version to mirror and the lock's entry for it, if any.
func (w *MirrorWriter) choose(ctx context.Context, r Requirement, lock *Lock) (*version.Version, *Locked, error) {
	src := r.Source
	if lock != nil && len(lock.Providers) > 0 {
		locked := lock.Providers[src]
		if locked == nil {
			return nil, nil, fmt.Errorf("provider %s is %w: run \"kyku init\" to lock it, then mirror again", src, errNotInLock)
		}
		v, err := version.NewVersion(locked.Version)
		if err != nil {
			return nil, nil, fmt.Errorf("provider %s: locked version %q: %w", src, locked.Version, err)
		}
		if !r.Constraints.Allows(v) {
			return nil, nil, fmt.Errorf("provider %s: locked version %s, constraint %q: %w; run \"kyku init --upgrade\"",
				src, locked.Version, r.Constraints, ErrLockedVersion)
		}
		if locked.CarriedOver {
			locked = nil
		}
		return v, locked, nil
	}
	listed, err := w.Registry.versions(ctx, src, Platform{})
	if err != nil {
		return nil, nil, forSource(src, err)
	}
	vs := parseVersions(listed)
	v := r.Constraints.newest(vs)
	if v == nil {
		return nil, nil, fmt.Errorf("provider %s: no version allowed by %q in its registry (it has %s)", src, r.Constraints, joinVersions(vs))
	}
	return v, nil, nil
}

var errNotInLock = errors.New("not in the lock file")

// fetch downloads the archive of src v for p into dir, checked, under
// its own name; a download refused leaves nothing in the mirror (it is
// downloaded and unpacked beside it, in w.Dir).
func (w *MirrorWriter) fetch(ctx context.Context, src Source, v *version.Version, p Platform, dir string, locked *Locked) error {
	f, err := w.Registry.fetch(ctx, src, v.Original(), p, w.Dir)
	if named := forSource(src, err); named != err {
		return named // unreachable: one line, as Install says it
	}
	if err != nil {
		return fmt.Errorf("for %s: %w", p, err)
	}
	defer os.Remove(f.archive)
	if locked != nil && hasKind(locked.Hashes, "zh") && !locked.Matches(f.zh) {
		return &ChecksumError{Source: src, Version: v.Original(), Where: "its registry's archive for " + p.String(), Got: []Hash{f.zh}}
	}
	h1, err := archiveH1(f.archive, w.Dir) // a package that unpacks, as installs need
	if err != nil {
		return fmt.Errorf("provider %s %s for %s: %w", src, v.Original(), p, err)
	}
	path := filepath.Join(dir, archiveFileName(src, v.Original(), p))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("mirror %s: %w", src, err)
	}
	if err := os.Rename(f.archive, path); err != nil {
		return fmt.Errorf("mirror %s %s for %s: %w", src, v.Original(), p, err)
	}
	w.h1[path] = h1
	return nil
}

// archiveH1 is the h1 hash of the package in archive, unpacked into a
// temporary directory under tmpParent.
func archiveH1(archive, tmpParent string) (Hash, error) {
	tmp, err := os.MkdirTemp(tmpParent, ".hash-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	pkg := filepath.Join(tmp, "pkg")
	if err := unzip(archive, pkg); err != nil {
		return "", err
	}
	return HashDir(pkg)
}

// writeIndex writes the index files of src's directory from the archives
// it holds: each archive's hashes are its h1 hash, of its files, and its
// zh hash, of its bytes.
func (w *MirrorWriter) writeIndex(src Source) error {
	dir := mirror{dir: w.Dir}.providerDir(src)
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("index the mirror of %s: %w", src, err)
	}
	type archive struct {
		Hashes []string `json:"hashes"`
		URL    string   `json:"url"`
	}
	versions := map[string]struct{}{}
	archives := map[string]map[string]archive{}
	for _, a := range archivesIn(dir, entries, src.Type) {
		h1, ok := w.h1[a.path]
		if !ok {
			if h1, err = archiveH1(a.path, dir); err != nil {
				return fmt.Errorf("index the mirror of %s: %s: %w", src, a.path, err)
			}
		}
		sum, err := fileSHA256(a.path)
		if err != nil {
			return fmt.Errorf("index the mirror of %s: %w", src, err)
		}
		hashes := []string{string(h1), string(zipHash(sum))}
		slices.Sort(hashes)
		v := a.version.Original()
		versions[v] = struct{}{}
		if archives[v] == nil {
			archives[v] = map[string]archive{}
		}
		archives[v][a.platform.String()] = archive{Hashes: hashes, URL: filepath.Base(a.path)}
	}
	if err := writeJSON(filepath.Join(dir, "index.json"), map[string]any{"versions": versions}); err != nil {
		return fmt.Errorf("index the mirror of %s: %w", src, err)
	}
	for v, as := range archives {
		if err := writeJSON(filepath.Join(dir, v+".json"), map[string]any{"archives": as}); err != nil {
			return fmt.Errorf("index the mirror of %s: %w", src, err)
		}
	}
	return nil
}

// writeJSON writes v, indented, to path: a temporary file renamed, so a
// mirror served while it is written never shows half a file.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".index-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
