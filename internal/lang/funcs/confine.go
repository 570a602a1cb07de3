package funcs

import (
	"os"
	"path/filepath"
)

// Repository is the directory a configuration in dir may read in (its
// Options.Within): the git repository dir is in (the nearest directory
// above it holding .git), else dir itself. A pull request's
// configuration must not read the runner's files (its credentials).
func Repository(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// Confine refuses path (absolute, cleaned) unless it is under within
// once links are resolved, as the file functions confined by
// Options.Within judge their paths.
func Confine(within, path string) error {
	return files{within: within}.confine(path)
}

// ErrOutside is Confine's refusal of a path out of within.
var ErrOutside = errOutside
