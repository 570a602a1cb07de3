package tfroots

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Materialize writes files (repository-relative slash paths → contents,
// as github.ExtractTarball returns them) under dir, regular files only,
// and marks dir as the repository's top (an empty .git directory): the
// file functions and local module paths of a root stay inside it. A path
// that would leave dir is refused.
func Materialize(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		return fmt.Errorf("write the source tree: %w", err)
	}
	for name, data := range files {
		if !fs.ValidPath(name) || strings.Contains(name, `\`) || name == ".git" || strings.HasPrefix(name, ".git/") {
			return fmt.Errorf("write the source tree: %q is not a path inside the repository", name)
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("write the source tree: %w", err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return fmt.Errorf("write the source tree: %w", err)
		}
	}
	return nil
}

// Project is the project name a root's plans, comments and commands go
// by: its directory, "_" for the repository's top.
func Project(root string) string {
	if root == "." || root == "" {
		return "_"
	}
	return root
}
