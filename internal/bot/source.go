package bot

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync"

	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/policy"
	"github.com/kyku/action/internal/tfinstall"
)

// sources reads source trees through the API (the tarball at a ref; no git
// clone, nothing on disk) and keeps them for the jobs one event fans out
// to, so several projects of one commit download it once.
type sources struct {
	repo     *github.Repo
	maxBytes int64

	mu    sync.Mutex
	trees map[string]*tree
}

type tree struct {
	once  sync.Once
	files map[string][]byte
	err   error
}

func newSources(repo *github.Repo, maxBytes int64) *sources {
	return &sources{repo: repo, maxBytes: maxBytes, trees: map[string]*tree{}}
}

// tree returns the files at ref (a SHA or a branch).
func (s *sources) tree(ctx context.Context, ref string) (map[string][]byte, error) {
	s.mu.Lock()
	t := s.trees[ref]
	if t == nil {
		t = &tree{}
		s.trees[ref] = t
	}
	s.mu.Unlock()
	t.once.Do(func() {
		rc, err := s.repo.Tarball(ctx, ref)
		if err != nil {
			t.err = err
			return
		}
		defer rc.Close()
		t.files, t.err = github.ExtractTarball(rc, s.maxBytes)
	})
	if t.err != nil {
		// A failed download (a cancelled job) is not cached for the others.
		s.mu.Lock()
		if s.trees[ref] == t {
			delete(s.trees, ref)
		}
		s.mu.Unlock()
	}
	return t.files, t.err
}

// config parses project's configuration at ref, expanded for environment
// env with the values the configuration itself gives (the environment's,
// the defaults): the bot takes no variable values from its own process
// environment, which is not the repository's. Unless ref is trustRef (or
// trustRef is ""), the variables the configuration at trustRef declares
// sensitive stay sensitive whatever the files at ref declare
// (config.Inputs.Trusted): the default branch decides, not a pull
// request. Bad config is a diag.Diagnostics with positions naming the
// repository paths.
func (s *sources) config(ctx context.Context, p settings.Project, ref, trustRef, env string) (*config.Config, error) {
	var trustRefs []string
	if trustRef != "" && trustRef != ref {
		trustRefs = []string{trustRef}
	}
	return s.configTrusting(ctx, p, ref, trustRefs, env)
}

// configTrusting is config with what is sensitive decided by every one of
// trustRefs together (config.TrustAll): for a merge whose rules cannot be
// read from one commit known to be the default branch's.
func (s *sources) configTrusting(ctx context.Context, p settings.Project, ref string, trustRefs []string, env string) (*config.Config, error) {
	in, err := s.files(ctx, p, ref)
	if err != nil {
		return nil, err
	}
	inputs := config.Inputs{Environment: env}
	if len(trustRefs) > 0 {
		trusts := make([]*config.Trust, len(trustRefs))
		for i, tr := range trustRefs {
			trusted, err := s.files(ctx, p, tr)
			if err != nil && !errors.Is(err, settings.ErrNoConfig) {
				return nil, fmt.Errorf("read which variables %s declares sensitive: %w", tr, err)
			}
			trusts[i] = config.TrustOf(trusted) // none there: it declares nothing
		}
		inputs.Trusted = config.TrustAll(trusts...)
	}
	return config.ParseEnv(in, inputs)
}

// files are project's configuration files at ref.
func (s *sources) files(ctx context.Context, p settings.Project, ref string) ([]config.File, error) {
	files, err := s.tree(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("read source at %s: %w", ref, err)
	}
	names, err := p.ConfigFiles(files)
	if err != nil {
		return nil, fmt.Errorf("read config at %s: %w", ref, err)
	}
	in := make([]config.File, len(names))
	for i, n := range names {
		in[i] = config.File{Name: n, Data: files[n]}
	}
	return in, nil
}

// policies reads the policies under policy.Dir at ref.
func (s *sources) policies(ctx context.Context, ref string) (*policy.Set, error) {
	files, err := s.tree(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("read the policies at %s: %w", ref, err)
	}
	return policy.FromTree(files, ref), nil
}

// lock reads the lock file beside project's configuration at ref (an
// empty lock when there is none: then no Terraform provider may run).
func (s *sources) lock(ctx context.Context, p settings.Project, ref string) (*tfinstall.Lock, error) {
	files, err := s.tree(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("read the lock file at %s: %w", ref, err)
	}
	dir := path.Clean(p.Config)
	if _, isFile := files[dir]; isFile {
		dir = path.Dir(dir)
	}
	return s.lockFile(ctx, path.Join(dir, tfinstall.LockFileName), ref)
}

// lockFile reads the lock file name (slash) at ref (an empty lock when
// there is none).
func (s *sources) lockFile(ctx context.Context, name, ref string) (*tfinstall.Lock, error) {
	files, err := s.tree(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("read the lock file at %s: %w", ref, err)
	}
	data, ok := files[name]
	if !ok {
		return &tfinstall.Lock{Providers: map[tfinstall.Source]*tfinstall.Locked{}}, nil
	}
	lock, ds := tfinstall.ParseLock(name+" at "+ref, data)
	if len(ds) > 0 {
		return nil, ds
	}
	return lock, nil
}
