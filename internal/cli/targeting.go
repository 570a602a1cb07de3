package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/kyku/action/internal/engine"
)

// targeting are a plan's --target and --exclude addresses, given on the
// command line or in files (--target-file, --exclude-file: one address
// a line, # comments), as OpenTofu's -target, -exclude, -target-file and
// -exclude-file.
type targeting struct {
	targets, exclude, targetFiles, excludeFiles listFlags
}

// register adds the four flags to fs; verb is the command's ("plan",
// "apply").
func (t *targeting) register(fs *flagSet, verb string) {
	fs.Var(&t.targets, "target", verb+" only the resource (or instance) `NAME` and what it depends on (repeatable)")
	fs.Var(&t.exclude, "exclude", verb+" everything but the resource (or instance, or module) `NAME` and what depends on it (repeatable; not with --target)")
	fs.Var(&t.targetFiles, "target-file", "--target each address in `FILE`, one a line (# starts a comment line; repeatable)")
	fs.Var(&t.excludeFiles, "exclude-file", "--exclude each address in `FILE`, one a line (# starts a comment line; repeatable)")
}

// given reports whether any of the flags was given.
func (t *targeting) given() bool {
	return len(t.targets)+len(t.exclude)+len(t.targetFiles)+len(t.excludeFiles) > 0
}

// resolve is the addresses to target and to exclude, the files' read;
// both given is OpenTofu's refusal.
func (t *targeting) resolve() (targets, exclude []string, err error) {
	if (len(t.targets) > 0 || len(t.targetFiles) > 0) && (len(t.exclude) > 0 || len(t.excludeFiles) > 0) {
		return nil, nil, engine.ErrTargetAndExclude // said before any file is read
	}
	targets, exclude = append([]string(nil), t.targets...), append([]string(nil), t.exclude...)
	for _, f := range t.targetFiles {
		more, err := addressesFile("--target-file", f)
		if err != nil {
			return nil, nil, err
		}
		targets = append(targets, more...)
	}
	for _, f := range t.excludeFiles {
		more, err := addressesFile("--exclude-file", f)
		if err != nil {
			return nil, nil, err
		}
		exclude = append(exclude, more...)
	}
	return targets, exclude, nil
}

// addressesFile reads the addresses of file, one a line: a line whose
// first character other than space is # is a comment; a blank line is
// refused, as OpenTofu refuses it.
func addressesFile(flag, file string) ([]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(text, "#"):
			continue
		case text == "":
			return nil, fmt.Errorf("%s:%d: an empty line: each line is a resource address or a # comment", file, line)
		}
		out = append(out, text)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, file, err)
	}
	return out, nil
}
