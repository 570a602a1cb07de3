package tfmodule

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Limits bound what a module package may cost. The zero value of a field
// is its default.
type Limits struct {
	// Download is the most bytes one download may have (512 MiB).
	Download int64
	// Unpacked is the most bytes an archive may unpack to (1 GiB).
	Unpacked int64
	// Entries is the most files, directories and links an archive may
	// hold (100,000).
	Entries int
}

func (l Limits) download() int64 { return or(l.Download, 512<<20) }
func (l Limits) unpacked() int64 { return or(l.Unpacked, 1<<30) }
func (l Limits) entries() int    { return int(or(int64(l.Entries), 100_000)) }

func or(v, def int64) int64 {
	if v > 0 {
		return v
	}
	return def
}

// archiveFormat is how a package archive is packed.
type archiveFormat string

const (
	formatZip   archiveFormat = "zip"
	formatTarGz archiveFormat = "tar.gz"
	formatTarBz archiveFormat = "tar.bz2"
)

// archiveOf is the format go-getter's decompressors name by key (the
// "archive" argument or the end of a URL's path); ok is false for a key
// Kyku does not unpack into a module package, with why.
func archiveOf(key string) (archiveFormat, error) {
	switch key {
	case "zip":
		return formatZip, nil
	case "tar.gz", "tgz":
		return formatTarGz, nil
	case "tar.bz2", "tar.tbz2":
		return formatTarBz, nil
	case "tar.xz", "txz":
		return "", fmt.Errorf("%w: xz archives (%s)", ErrUnsupported, key)
	case "gz", "bz2", "xz":
		return "", fmt.Errorf("a %s file is one compressed file, not a module package (a directory): use a tar or zip archive", key)
	}
	return "", fmt.Errorf("%w: archive type %q", ErrUnsupported, key)
}

// archiveKeys are go-getter's decompressor keys, longest first, as a
// URL's path is matched against them.
var archiveKeys = [...]string{"tar.tbz2", "tar.bz2", "tar.gz", "tar.xz", "tgz", "txz", "zip", "bz2", "gz", "xz"}

// sniffArchive is the format of the archive in f, by its first bytes
// (what a registry serves directly is not named by a file name).
func sniffArchive(f *os.File) (archiveFormat, error) {
	var head [6]byte
	n, _ := f.ReadAt(head[:], 0)
	b := head[:n]
	switch {
	case bytes.HasPrefix(b, []byte("PK\x03\x04")), bytes.HasPrefix(b, []byte("PK\x05\x06")):
		return formatZip, nil
	case bytes.HasPrefix(b, []byte{0x1f, 0x8b}):
		return formatTarGz, nil
	case bytes.HasPrefix(b, []byte("BZh")):
		return formatTarBz, nil
	case bytes.HasPrefix(b, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return "", fmt.Errorf("%w: xz archives", ErrUnsupported)
	}
	return "", errors.New("the module package is no zip archive, nor a tar archive compressed with gzip or bzip2")
}

// ErrArchiveRefused is wrapped by the error of an archive that holds
// what no module package may: names leading out of it, links pointing
// out of it, devices, or more than the limits.
var ErrArchiveRefused = errors.New("archive refused")

// unpacker writes one archive's entries under dst.
type unpacker struct {
	dst     string
	limits  Limits
	written int64
	entries int
}

func (u *unpacker) refuse(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrArchiveRefused}, args...)...)
}

// unpack extracts the archive in file into dst (which must not exist),
// then checks that every link resolves inside it.
func unpack(file *os.File, format archiveFormat, dst string, limits Limits) error {
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		return err
	}
	u := &unpacker{dst: dst, limits: limits}
	var err error
	switch format {
	case formatZip:
		err = u.zip(file)
	case formatTarGz:
		var gz *gzip.Reader
		if gz, err = gzip.NewReader(bufio.NewReader(file)); err == nil {
			err = u.tar(gz)
		}
	case formatTarBz:
		err = u.tar(bzip2.NewReader(bufio.NewReader(file)))
	}
	if err == nil {
		err = checkLinks(dst)
		if err != nil {
			err = fmt.Errorf("%w: %w", ErrArchiveRefused, err)
		}
	}
	return err
}

// target is where entry name goes, after checking the name: relative,
// slash-separated, nothing leading out, no entry under a link.
func (u *unpacker) target(name string) (string, error) {
	u.entries++
	if u.entries > u.limits.entries() {
		return "", u.refuse("more than %d entries", u.limits.entries())
	}
	clean := path.Clean(strings.TrimSuffix(name, "/"))
	if name == "" || strings.Contains(name, `\`) || path.IsAbs(name) || clean == ".." || strings.HasPrefix(clean, "../") ||
		strings.ContainsRune(name, 0) {
		return "", u.refuse("entry %q leads outside the package", name)
	}
	if clean == "." {
		return u.dst, nil
	}
	// Create the parents, refusing to pass through a link.
	dir := u.dst
	parts := strings.Split(clean, "/")
	for _, p := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, p)
		info, err := os.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(dir, 0o755); err != nil {
				return "", err
			}
		case err != nil:
			return "", err
		case info.Mode()&fs.ModeSymlink != 0:
			return "", u.refuse("entry %q is under a symbolic link", name)
		case !info.IsDir():
			return "", u.refuse("entry %q is under a file", name)
		}
	}
	return filepath.Join(u.dst, filepath.FromSlash(clean)), nil
}

func (u *unpacker) dir(name string) error {
	t, err := u.target(name)
	if err != nil {
		return err
	}
	if err := os.Mkdir(t, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if info, err := os.Lstat(t); err != nil || !info.IsDir() {
		return u.refuse("entry %q is a directory and something else", name)
	}
	return nil
}

func (u *unpacker) file(name string, r io.Reader, mode fs.FileMode) error {
	t, err := u.target(name)
	if err != nil {
		return err
	}
	perm := fs.FileMode(0o644)
	if mode&0o111 != 0 {
		perm = 0o755
	}
	out, err := os.OpenFile(t, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return u.refuse("entry %q appears twice", name)
		}
		return err
	}
	budget := u.limits.unpacked() - u.written
	n, err := io.Copy(out, io.LimitReader(r, budget+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	u.written += n
	if err == nil && n > budget {
		err = u.refuse("it unpacks to more than %d bytes", u.limits.unpacked())
	}
	return err
}

// link creates a symbolic link: relative, and (checked after unpacking,
// with every link in place) resolving inside the package.
func (u *unpacker) link(name, to string) error {
	if to == "" || path.IsAbs(to) || strings.Contains(to, `\`) || filepath.IsAbs(to) {
		return u.refuse("symbolic link %q points outside the package (to %s)", name, to)
	}
	t, err := u.target(name)
	if err != nil {
		return err
	}
	rel, _ := filepath.Rel(u.dst, filepath.Join(filepath.Dir(t), filepath.FromSlash(to)))
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return u.refuse("symbolic link %q points outside the package (to %s)", name, to)
	}
	if err := os.Symlink(to, t); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return u.refuse("entry %q appears twice", name)
		}
		return err
	}
	return nil
}

func (u *unpacker) zip(f *os.File) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	zr, err := zip.NewReader(f, info.Size())
	if err != nil {
		return fmt.Errorf("read zip archive: %w", err)
	}
	for _, e := range zr.File {
		mode := e.Mode()
		switch {
		case mode.IsDir():
			err = u.dir(e.Name)
		case mode&fs.ModeSymlink != 0:
			err = u.zipLink(e)
		case mode.IsRegular():
			err = u.zipFile(e)
		default:
			err = u.refuse("entry %q is a %s", e.Name, mode.Type())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (u *unpacker) zipFile(e *zip.File) error {
	rc, err := e.Open()
	if err != nil {
		return fmt.Errorf("read %s: %w", e.Name, err)
	}
	defer rc.Close()
	return u.file(e.Name, rc, e.Mode())
}

func (u *unpacker) zipLink(e *zip.File) error {
	rc, err := e.Open()
	if err != nil {
		return fmt.Errorf("read %s: %w", e.Name, err)
	}
	defer rc.Close()
	to, err := io.ReadAll(io.LimitReader(rc, 4096))
	if err != nil {
		return fmt.Errorf("read %s: %w", e.Name, err)
	}
	return u.link(e.Name, string(to))
}

func (u *unpacker) tar(r io.Reader) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read tar archive: %w", err)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = u.dir(h.Name)
		case tar.TypeReg: // the reader reports an old tar's TypeRegA as TypeReg (or TypeDir)
			err = u.file(h.Name, tr, h.FileInfo().Mode())
		case tar.TypeSymlink:
			err = u.link(h.Name, h.Linkname)
		case tar.TypeXGlobalHeader:
			// git archive's pax header: nothing to write.
		case tar.TypeLink:
			err = u.refuse("entry %q is a hard link", h.Name)
		default:
			err = u.refuse("entry %q is of tar type %q", h.Name, h.Typeflag)
		}
		if err != nil {
			return err
		}
	}
}
