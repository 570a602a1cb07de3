package tfmodule

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// within reports whether path is dir or under it (both clean, absolute).
func within(dir, path string) bool {
	if dir == path {
		return true
	}
	return strings.HasPrefix(path, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// realPath is p absolute with every symbolic link resolved.
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// checkLinks refuses a package (a git checkout, an unpacked archive) with
// a symbolic link that does not resolve to a path inside it: a module
// reading "${path.module}/x" must not read the runner's files.
func checkLinks(root string) error {
	real, err := realPath(root)
	if err != nil {
		return err
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		target, _ := os.Readlink(p)
		to, err := filepath.EvalSymlinks(p)
		if err != nil {
			return fmt.Errorf("symbolic link %s (to %s) does not resolve: refused", filepath.ToSlash(rel), target)
		}
		if !within(real, to) {
			return fmt.Errorf("symbolic link %s points outside the module package (to %s): refused", filepath.ToSlash(rel), target)
		}
		return nil
	})
}

// copyTree copies the package at src into dst, which must not exist:
// directories, regular files and symbolic links (as they are).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch t := d.Type(); {
		case t.IsDir():
			return os.Mkdir(to, 0o755)
		case t&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case t.IsRegular():
			return copyFile(p, to)
		}
		return fmt.Errorf("copy %s: not a regular file, directory or link", p)
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, info.Mode().Perm())
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
