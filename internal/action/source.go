package action

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/github"
)

// maxTarball bounds the bytes of a repository archive read to find the
// configuration of a pull request's head.
const maxTarball = 256 << 20

// errNoConfig: there is no configuration at the path at that ref.
var errNoConfig = errors.New("no configuration")

// sources loads the project's configuration from the checkout (the
// workspace) or from a git ref through the API. Files are named by their
// repository-relative paths, so annotations point at them.
type sources struct {
	root  string // GITHUB_WORKSPACE: the checkout
	path  string // the configuration, relative to root, slash-separated
	repo  *github.Repo
	cache *treeCache // archives read in this run, by ref (nil: none kept)
	// inputs expand the configuration: the input environment, input vars
	// and KYKU_VAR_<name> from the step's environment.
	inputs config.Inputs
	// trustRef is where the variable declarations that decide what is
	// sensitive are read (config.Inputs.Trusted): the default branch, or
	// as it was before a merge. Every configuration loaded elsewhere — a
	// pull request's head, a merge commit, a checkout of either — is
	// expanded with them, so a pull request cannot declare a secret not
	// sensitive. "": none (the checkout is the default branch itself).
	trustRef string
}

// expandWith returns the inputs for a configuration loaded at ref ("" for
// the checkout): s.inputs with the trusted declarations of s.trustRef,
// unless ref is s.trustRef itself.
func (s sources) expandWith(ctx context.Context, ref string) (config.Inputs, error) {
	in := s.inputs
	if s.trustRef == "" || ref == s.trustRef {
		return in, nil
	}
	files, err := s.tree(ctx, s.trustRef)
	if err != nil {
		return in, fmt.Errorf("read which variables %s declares sensitive: %w", s.trustRef, err)
	}
	picked, err := pick(files, s.path, s.trustRef)
	if err != nil && !errors.Is(err, errNoConfig) {
		return in, err
	}
	// No configuration there yet: it declares nothing, so every value
	// given outside the files is sensitive.
	in.Trusted = config.TrustOf(picked)
	return in, nil
}

// dir is the directory of the configuration cfg was loaded from, relative
// to the root, slash-separated: the file's directory, or the directory
// itself (cfg holds the files it was read from).
func (s sources) dir(cfg *config.Config) string {
	if len(cfg.Files) == 1 && cfg.Files[0] == s.path {
		return path.Dir(s.path)
	}
	return s.path
}

// checkout loads the configuration from the checkout.
func (s sources) checkout(ctx context.Context) (*config.Config, error) {
	files := map[string][]byte{}
	full := filepath.Join(s.root, filepath.FromSlash(s.path))
	info, err := os.Stat(full)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("load config %s from the checkout: %w (did the workflow run actions/checkout?)", s.path, errNoConfig)
	case err != nil:
		return nil, fmt.Errorf("load config %s: %w", s.path, err)
	case !info.IsDir():
		data, err := os.ReadFile(full)
		if err != nil {
			return nil, fmt.Errorf("load config %s: %w", s.path, err)
		}
		files[s.path] = data
	default:
		entries, err := os.ReadDir(full)
		if err != nil {
			return nil, fmt.Errorf("load config %s: %w", s.path, err)
		}
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			data, err := os.ReadFile(filepath.Join(full, e.Name()))
			if err != nil {
				return nil, fmt.Errorf("load config %s: %w", s.path, err)
			}
			files[path.Join(s.path, e.Name())] = data
		}
	}
	in, err := s.expandWith(ctx, "")
	if err != nil {
		return nil, err
	}
	return parse(files, s.path, "the checkout", in)
}

// at loads the configuration at ref (a pull request's head SHA, or the
// default branch) from the repository archive.
func (s sources) at(ctx context.Context, ref string) (*config.Config, error) {
	files, err := s.tree(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("load config at %s: %w", ref, err)
	}
	in, err := s.expandWith(ctx, ref)
	if err != nil {
		return nil, err
	}
	return parse(files, s.path, ref, in)
}

// parse picks the configuration at p from files and expands it with in.
func parse(files map[string][]byte, p, where string, in config.Inputs) (*config.Config, error) {
	picked, err := pick(files, p, where)
	if err != nil {
		return nil, err
	}
	return config.ParseEnv(picked, in)
}

// pick returns the configuration files at p among files (repository-
// relative path → contents): the file p, or the *.yaml and *.yml files
// directly in the directory p, in name order.
func pick(files map[string][]byte, p, where string) ([]config.File, error) {
	var picked []config.File
	if data, ok := files[p]; ok {
		picked = append(picked, config.File{Name: p, Data: data})
	} else {
		prefix := p + "/"
		if p == "." {
			prefix = ""
		}
		for name, data := range files {
			rest, ok := strings.CutPrefix(name, prefix)
			ext := path.Ext(rest)
			if ok && !strings.Contains(rest, "/") && (ext == ".yaml" || ext == ".yml") {
				picked = append(picked, config.File{Name: name, Data: data})
			}
		}
		sort.Slice(picked, func(i, j int) bool { return picked[i].Name < picked[j].Name })
	}
	if len(picked) == 0 {
		return nil, fmt.Errorf("load config %s at %s: %w", p, where, errNoConfig)
	}
	return picked, nil
}
