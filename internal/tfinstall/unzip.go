package tfinstall

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxUnpacked bounds what a package may unpack to (the largest providers
// are under a gigabyte).
const maxUnpacked = 4 << 30

// unzip unpacks a package archive into dest, which must not exist: into a
// temporary directory beside it first, renamed when complete, so that a
// failed unpack leaves nothing a later run could take for a package.
// Only plain files and directories under dest are accepted: no absolute
// or escaping names, no links.
func unzip(archive, dest string) error {
	r, err := zip.OpenReader(archive)
	if err != nil {
		return fmt.Errorf("open package archive: %w", err)
	}
	defer r.Close()
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return fmt.Errorf("unpack package: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dest), ".unpack-*")
	if err != nil {
		return fmt.Errorf("unpack package: %w", err)
	}
	defer os.RemoveAll(tmp)
	var total int64
	for _, f := range r.File {
		name := f.Name
		if name == "" || strings.Contains(name, `\`) || path.IsAbs(name) || path.Clean(name) != strings.TrimSuffix(name, "/") ||
			name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("unpack package: refused entry %q", name)
		}
		target := filepath.Join(tmp, filepath.FromSlash(path.Clean(name)))
		mode := f.Mode()
		switch {
		case mode.IsDir():
			if err := os.MkdirAll(target, 0o755); err != nil {
				return fmt.Errorf("unpack package: %w", err)
			}
			continue
		case !mode.IsRegular():
			return fmt.Errorf("unpack package: refused entry %q (%s)", name, mode.Type())
		}
		n, err := unzipFile(f, target, maxUnpacked-total)
		if err != nil {
			return fmt.Errorf("unpack package: %s: %w", name, err)
		}
		total += n
	}
	if err := os.Rename(tmp, dest); err != nil {
		return fmt.Errorf("unpack package: %w", err)
	}
	return nil
}

func unzipFile(f *zip.File, target string, budget int64) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return 0, err
	}
	rc, err := f.Open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	perm := os.FileMode(0o644)
	if f.Mode()&0o111 != 0 {
		perm = 0o755
	}
	out, err := os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(rc, budget+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > budget {
		err = fmt.Errorf("the package unpacks to more than %d bytes", int64(maxUnpacked))
	}
	return n, err
}
