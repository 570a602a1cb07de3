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

// Platform is an operating system and architecture, as packages are
// built for them ("linux_amd64").
type Platform struct{ OS, Arch string }

func (p Platform) String() string { return p.OS + "_" + p.Arch }

// mirror is a directory laid out as OpenTofu's unpacked filesystem
// mirror (and plugin cache): HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/ holding
// the package's files, among them terraform-provider-TYPE_vVERSION….
type mirror struct{ dir string }

func (m mirror) providerDir(src Source) string {
	return filepath.Join(m.dir, src.Host, src.Namespace, src.Type)
}

func (m mirror) packageDir(src Source, v *version.Version, p Platform) string {
	return filepath.Join(m.providerDir(src), v.Original(), p.String())
}

// versions lists the versions the mirror holds a package of for the
// platform.
func (m mirror) versions(src Source, p Platform) ([]*version.Version, error) {
	entries, err := os.ReadDir(m.providerDir(src))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read mirror: %w", err)
	}
	var names []string
	for _, e := range entries {
		if fi, err := os.Stat(filepath.Join(m.providerDir(src), e.Name(), p.String())); err == nil && fi.IsDir() {
			names = append(names, e.Name())
		}
	}
	return parseVersions(names), nil
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
