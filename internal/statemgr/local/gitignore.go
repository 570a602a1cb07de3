package local

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// GitIgnoreName is the file that keeps a state directory out of git.
const GitIgnoreName = ".gitignore"

// gitIgnoreBody ignores everything in the directory, itself included:
// state, journals, backups and saved plans hold secrets in clear.
const gitIgnoreBody = "# Kyku's local state: it holds secrets in clear. Never commit it.\n*\n"

// WriteGitIgnore writes dir's .gitignore, which ignores everything in
// dir, unless dir already has one (whatever it says: the user's). It
// creates dir when missing. The write is atomic, so processes racing to
// write it leave one whole file.
func WriteGitIgnore(dir string) error {
	p := filepath.Join(dir, GitIgnoreName)
	if _, err := os.Lstat(p); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("keep %s out of git: %w", dir, err)
	}
	if err := writeFileAtomic(p, []byte(gitIgnoreBody)); err != nil {
		return fmt.Errorf("keep %s out of git: %w", dir, err)
	}
	return nil
}

// keepIgnored writes the directory's .gitignore (Options.GitIgnore)
// before the first file this Backend writes there. The lock alone writes
// none: a run that wrote nothing (a plan) leaves nothing behind.
func (b *Backend) keepIgnored() error {
	if !b.opts.GitIgnore {
		return nil
	}
	b.ignoreOnce.Do(func() { b.ignoreErr = WriteGitIgnore(b.dir) })
	return b.ignoreErr
}
