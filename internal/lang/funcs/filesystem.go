package funcs

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// addFilesystem adds the filesystem functions; templatefile is in
// template.go, the file hashes in crypto.go. As in OpenTofu, a relative
// path starts at the module's directory and "~" is the home directory;
// absolute paths and ".." are allowed.
func addFilesystem(t map[string]function.Function, opts Options) {
	fsys := filesOf(opts)
	t["abspath"] = absPathFunc(opts.WorkDir)
	t["basename"] = pathFunc(filepath.Base)
	t["dirname"] = pathFunc(filepath.Dir)
	t["file"] = fileFunc(fsys, false)
	t["filebase64"] = fileFunc(fsys, true)
	t["fileexists"] = fileExistsFunc(fsys)
	t["fileset"] = fileSetFunc(fsys)
	t["pathexpand"] = pathExpandFunc(fsys)
}

// filesOf is how the functions of opts find files.
func filesOf(opts Options) files {
	return files{base: opts.BaseDir, getenv: opts.Getenv, within: opts.Within}
}

// files resolves the paths the file functions are given.
type files struct {
	base   string
	getenv func(string) string
	within string // "" reads anywhere
}

// expand replaces a leading "~" with the home directory, as OpenTofu's
// go-homedir does (without its fallback of asking a shell).
func (f files) expand(path string) (string, error) {
	if path == "" || path[0] != '~' {
		return path, nil
	}
	if len(path) > 1 && path[1] != '/' && path[1] != '\\' {
		return "", errors.New("cannot expand user-specific home dir")
	}
	home := f.getenv("HOME")
	if runtime.GOOS == "windows" {
		for _, alt := range []string{f.getenv("USERPROFILE"), f.getenv("HOMEDRIVE") + f.getenv("HOMEPATH")} {
			if home == "" {
				home = alt
			}
		}
	}
	if home == "" {
		return "", errors.New("the home directory is not set (HOME)")
	}
	return filepath.Join(home, path[1:]), nil
}

// resolve is the file path names: "~" expanded, relative to the base.
func (f files) resolve(path string) (string, error) {
	p, err := f.expand(path)
	if err != nil {
		return "", fmt.Errorf("failed to expand ~: %w", err)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(f.base, p)
	}
	p = filepath.Clean(p)
	return p, f.confine(p)
}

// errOutside refuses a path out of Options.Within.
var errOutside = errors.New("is outside the configuration's repository: a configuration may read only its own files")

// confine refuses p unless it is under f.within once links are resolved
// (a path that does not exist is judged by its nearest existing parent).
func (f files) confine(p string) error {
	if f.within == "" {
		return nil
	}
	root, err := filepath.EvalSymlinks(f.within)
	if err != nil {
		return fmt.Errorf("the configuration's repository %s: %w", f.within, err)
	}
	real, rest := p, ""
	for {
		r, err := filepath.EvalSymlinks(real)
		if err == nil {
			real = filepath.Join(r, rest)
			break
		}
		parent := filepath.Dir(real)
		if parent == real {
			break
		}
		rest = filepath.Join(filepath.Base(real), rest)
		real = parent
	}
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return errOutside
	}
	return nil
}

func (f files) open(path string) (*os.File, error) {
	p, err := f.resolve(path)
	if err != nil {
		return nil, err
	}
	return os.Open(p)
}

// read is the content of the file path names; shown is how messages
// name it.
func (f files) read(path, shown string) ([]byte, error) {
	fh, err := f.open(path)
	if errors.Is(err, errOutside) {
		return nil, fmt.Errorf("%s %w", shown, err)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no file exists at %s; this function works only with files that are distributed as part of the configuration source code, so if this file will be created by a resource in this configuration you must instead obtain this result from an attribute of that resource", shown)
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(fh)
	if err != nil {
		return nil, fmt.Errorf("failed to read file: %w", err)
	}
	return b, nil
}

// fileFunc reads a file as UTF-8 text, or as Base64 of its bytes.
func fileFunc(f files, asBase64 bool) function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{{Name: "path", Type: cty.String, AllowMarked: true}},
		Type:         function.StaticReturnType(cty.String),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			pv, ms := args[0].Unmark()
			path := pv.AsString()
			if !asBase64 {
				s, err := f.readText(path, ms)
				if err != nil {
					return cty.UnknownVal(cty.String), err
				}
				return cty.StringVal(s).WithMarks(ms), nil
			}
			b, err := f.read(path, shownPath(path, ms))
			if err != nil {
				return cty.UnknownVal(cty.String), function.NewArgError(0, err)
			}
			return cty.StringVal(base64.StdEncoding.EncodeToString(b)).WithMarks(ms), nil
		},
	})
}

// readText is the content of a UTF-8 text file; ms are the marks of
// its path.
func (f files) readText(path string, ms cty.ValueMarks) (string, error) {
	b, err := f.read(path, shownPath(path, ms))
	if err != nil {
		return "", function.NewArgError(0, err)
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("contents of %s are not valid UTF-8; use the filebase64 function to obtain the Base64 encoded contents or the other file functions (e.g. filemd5, filesha256) to obtain file hashing results instead", shownPath(path, ms))
	}
	return string(b), nil
}

// shownPath is how a message names a path: quoted, or redacted.
func shownPath(path string, ms ...cty.ValueMarks) string { return quoted(path, ms...) }

// fileExistsFunc is true for a regular file, false for nothing there,
// and an error for anything else (a directory, a device, a socket).
func fileExistsFunc(f files) function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{{Name: "path", Type: cty.String, AllowMarked: true}},
		Type:         function.StaticReturnType(cty.Bool),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			pv, ms := args[0].Unmark()
			path, err := f.resolve(pv.AsString())
			if errors.Is(err, errOutside) {
				return cty.UnknownVal(cty.Bool), fmt.Errorf("%s %w", shownPath(pv.AsString(), ms), err)
			}
			if err != nil {
				return cty.UnknownVal(cty.Bool), err
			}
			fi, err := os.Stat(path)
			if errors.Is(err, fs.ErrNotExist) {
				return cty.False.WithMarks(ms), nil
			}
			if err != nil {
				return cty.UnknownVal(cty.Bool), fmt.Errorf("failed to stat %s", shownPath(path, ms))
			}
			mode := fi.Mode()
			if mode.IsRegular() {
				return cty.True.WithMarks(ms), nil
			}
			what := "is not a regular file"
			switch {
			case mode&fs.ModeDir != 0:
				what = "is a directory, not a file"
			case mode&fs.ModeDevice != 0:
				what = "is a device node, not a regular file"
			case mode&fs.ModeNamedPipe != 0:
				what = "is a named pipe, not a regular file"
			case mode&fs.ModeSocket != 0:
				what = "is a unix domain socket, not a regular file"
			}
			// OpenTofu names argument 1 of this one-argument function, so
			// the message reads "Call to function ... failed"; so does ours.
			return cty.UnknownVal(cty.Bool), function.NewArgErrorf(1, "%s %s", shownPath(path, ms), what)
		},
	})
}

// fileSetFunc lists the regular files under path matching a glob
// pattern ("*", "**", "{a,b}", "[a-z]", "?"), relative to path, with
// forward slashes.
func fileSetFunc(f files) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{
			{Name: "path", Type: cty.String, AllowMarked: true},
			{Name: "pattern", Type: cty.String, AllowMarked: true},
		},
		Type:         function.StaticReturnType(cty.Set(cty.String)),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			pv, pm := args[0].Unmark()
			gv, gm := args[1].Unmark()
			dir := pv.AsString()
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(f.base, dir)
			}
			if err := f.confine(filepath.Clean(dir)); err != nil {
				return cty.UnknownVal(cty.Set(cty.String)), fmt.Errorf("%s %w", shownPath(dir, pm), err)
			}
			pattern := filepath.Join(dir, gv.AsString())
			matches, err := doublestar.FilepathGlob(pattern)
			if err != nil {
				return cty.UnknownVal(cty.Set(cty.String)), fmt.Errorf("failed to glob pattern %s: %w", shownPath(pattern, pm, gm), err)
			}
			var found []cty.Value
			for _, m := range matches {
				fi, err := os.Stat(m)
				if err != nil {
					return cty.UnknownVal(cty.Set(cty.String)), fmt.Errorf("failed to stat %s: %w", shownPath(m, pm, gm), err)
				}
				if !fi.Mode().IsRegular() {
					continue
				}
				rel, err := filepath.Rel(dir, m)
				if err != nil {
					return cty.UnknownVal(cty.Set(cty.String)), fmt.Errorf("failed to trim path of match %s: %w", shownPath(m, pm, gm), err)
				}
				found = append(found, cty.StringVal(filepath.ToSlash(rel)))
			}
			if len(found) == 0 {
				return cty.SetValEmpty(cty.String).WithMarks(pm, gm), nil
			}
			return cty.SetVal(found).WithMarks(pm, gm), nil
		},
	})
}

// pathFunc applies a pure path operation.
func pathFunc(op func(string) string) function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{strParam("path")},
		Type:         function.StaticReturnType(cty.String),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.StringVal(op(args[0].AsString())), nil
		},
	})
}

// absPathFunc makes a path absolute against the working directory, with
// forward slashes.
func absPathFunc(workDir string) function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{strParam("path")},
		Type:         function.StaticReturnType(cty.String),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			p := args[0].AsString()
			var err error
			switch {
			case filepath.IsAbs(p):
				p = filepath.Clean(p)
			case workDir != "":
				p = filepath.Join(workDir, p)
			default:
				p, err = filepath.Abs(p)
			}
			return cty.StringVal(filepath.ToSlash(p)), err
		},
	})
}

func pathExpandFunc(f files) function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{strParam("path")},
		Type:         function.StaticReturnType(cty.String),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			p, err := f.expand(args[0].AsString())
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			return cty.StringVal(p), nil
		},
	})
}
