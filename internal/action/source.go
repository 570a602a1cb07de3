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
func (s sources) checkout(context.Context) (*config.Config, error) {
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
	return parse(files, s.path, "the checkout", s.inputs)
}

// at loads the configuration at ref (a pull request's head SHA, or the
// default branch) from the repository archive.
func (s sources) at(ctx context.Context, ref string) (*config.Config, error) {
	files, err := s.tree(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("load config at %s: %w", ref, err)
	}
	return parse(files, s.path, ref, s.inputs)
}

// parse picks the configuration at p from files (repository-relative path
// → contents): the file p, or the *.yaml and *.yml files directly in the
// directory p, in name order, and expands it with in.
func parse(files map[string][]byte, p, where string, in config.Inputs) (*config.Config, error) {
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
	return config.ParseEnv(picked, in)
}
