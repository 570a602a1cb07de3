package tfinstall

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	version "github.com/hashicorp/go-version"
)

// EnvMirror names the environment variable of the filesystem mirror.
const EnvMirror = "KYKU_PLUGIN_MIRROR"

// HashiCorpHost is HashiCorp's registry, where Terraform's sources without
// a host are: a mirror's packages under it are also found for a source on
// DefaultHost (see mirror).
const HashiCorpHost = "registry.terraform.io"

// Platform is an operating system and architecture, as packages are
// built for them ("linux_amd64").
type Platform struct{ OS, Arch string }

func (p Platform) String() string { return p.OS + "_" + p.Arch }

// ParsePlatform reads "OS_ARCH" ("linux_amd64"), as --platform gives it.
func ParsePlatform(s string) (Platform, error) {
	goos, arch, ok := strings.Cut(s, "_")
	if !ok || !validName(goos) || !validName(arch) || strings.Contains(arch, "_") {
		return Platform{}, fmt.Errorf("platform %q: want OS_ARCH, such as linux_amd64", s)
	}
	return Platform{OS: goos, Arch: arch}, nil
}

// mirror is a filesystem mirror in either of the layouts OpenTofu reads:
//
//	unpacked: HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/ holding the package's
//	          files, among them terraform-provider-TYPE_vVERSION…
//	packed:   HOST/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip
//
// The packed one is what `tofu providers mirror` and `kyku providers
// mirror` write; the index.json and VERSION.json beside the archives are
// for serving the directory as a network mirror, and are not read (nor
// are they by OpenTofu's filesystem mirror). A source on DefaultHost is
// also found under HashiCorpHost, where Terraform's mirrors keep the
// same providers; a package under the source's own host comes first.
type mirror struct{ dir string }

func (m mirror) providerDir(src Source) string {
	return filepath.Join(m.dir, src.Host, src.Namespace, src.Type)
}

func (m mirror) packageDir(src Source, v *version.Version, p Platform) string {
	return filepath.Join(m.providerDir(src), v.Original(), p.String())
}

// mirrored is one package a mirror holds: unpacked in dir, or packed in
// archive.
type mirrored struct {
	version      *version.Version
	dir, archive string
}

// hosts are the sources a mirror's packages of src are kept under.
func (m mirror) hosts(src Source) []Source {
	out := []Source{src}
	if src.Host == DefaultHost {
		out = append(out, Source{Host: HashiCorpHost, Namespace: src.Namespace, Type: src.Type})
	}
	return out
}

// packages lists the packages of src for p the mirror holds, in the
// order they are preferred: the source's own host before the alias, an
// unpacked package before an archive.
func (m mirror) packages(src Source, p Platform) ([]mirrored, error) {
	var out []mirrored
	for _, s := range m.hosts(src) {
		entries, err := os.ReadDir(m.providerDir(s))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read mirror: %w", err)
		}
		for _, e := range entries {
			path := filepath.Join(m.providerDir(s), e.Name(), p.String())
			v, err := version.NewVersion(e.Name())
			if err != nil {
				continue
			}
			if fi, err := os.Stat(path); err == nil && fi.IsDir() { // a link is followed
				out = append(out, mirrored{version: v, dir: path})
			}
		}
		for _, a := range archivesIn(m.providerDir(s), entries, s.Type) {
			if a.platform == p {
				out = append(out, mirrored{version: a.version, archive: a.path})
			}
		}
	}
	return out, nil
}

// packedArchive is an archive of the packed layout.
type packedArchive struct {
	version  *version.Version
	platform Platform
	path     string
}

// archivesIn lists the archives of provider type typ among the entries of
// dir, a provider's directory of the packed layout.
func archivesIn(dir string, entries []fs.DirEntry, typ string) []packedArchive {
	var out []packedArchive
	for _, e := range entries {
		v, p, ok := archiveName(e.Name(), typ)
		if !ok {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
			out = append(out, packedArchive{version: v, platform: p, path: path})
		}
	}
	return out
}

// archiveName reads a packed package's file name,
// terraform-provider-TYPE_VERSION_OS_ARCH.zip (in any case, as OpenTofu
// reads it).
func archiveName(name, typ string) (*version.Version, Platform, bool) {
	lower := strings.ToLower(name)
	prefix := "terraform-provider-" + typ + "_"
	if !strings.HasPrefix(lower, prefix) || !strings.HasSuffix(lower, ".zip") {
		return nil, Platform{}, false
	}
	parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(lower, prefix), ".zip"), "_")
	if len(parts) < 3 {
		return nil, Platform{}, false
	}
	v, err := version.NewVersion(parts[0])
	if err != nil {
		return nil, Platform{}, false
	}
	return v, Platform{OS: parts[1], Arch: parts[2]}, true
}

// archiveFileName is the packed package's file name.
func archiveFileName(src Source, v string, p Platform) string {
	return fmt.Sprintf("terraform-provider-%s_%s_%s.zip", src.Type, v, p)
}

// versionsOf lists the versions of pkgs, each once.
func versionsOf(pkgs []mirrored) []*version.Version {
	var out []*version.Version
	for _, pk := range pkgs {
		dup := false
		for _, v := range out {
			dup = dup || v.Equal(pk.version)
		}
		if !dup {
			out = append(out, pk.version)
		}
	}
	return out
}

// find is the first of pkgs of version v.
func find(pkgs []mirrored, v *version.Version) (mirrored, bool) {
	for _, pk := range pkgs {
		if pk.version.Equal(v) {
			return pk, true
		}
	}
	return mirrored{}, false
}

// findExecutable finds the provider's program in an unpacked package:
// the regular, executable file named terraform-provider-TYPE….
func findExecutable(dir string, src Source) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("read package: %w", err)
	}
	var found []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "terraform-provider-"+src.Type) {
			continue
		}
		fi, err := os.Stat(filepath.Join(dir, e.Name()))
		if err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			found = append(found, e.Name())
		}
	}
	sort.Strings(found)
	if len(found) == 0 {
		return "", fmt.Errorf("package %s holds no executable terraform-provider-%s", dir, src.Type)
	}
	return filepath.Join(dir, found[0]), nil
}
