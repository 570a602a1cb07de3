package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/noun"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/tflayout"
	"github.com/kyku/action/internal/workspace"
)

// openBackend opens only the backend the config names (no provider).
func (c *common) openBackend(ctx context.Context, env *Env, op string) (statemgr.Backend, error) {
	cfg := &config.Config{}
	if loaded, err := c.load(env); err == nil {
		cfg = loaded
	} else if fileExists(c.config) { // a config that exists but does not load is an error
		return nil, err
	}
	s, err := c.settings(env, op)
	if err != nil {
		return nil, err
	}
	if op == "state rekey" {
		if cfg.Encryption == nil {
			return nil, fmt.Errorf("state rekey: %s has no encryption: section; add one (e.g. encryption: { key: passphrase }) to say which key to encrypt with", c.config)
		}
		s.AcceptClearState = true
	}
	return workspace.OpenConfigBackend(ctx, cfg, s)
}

// stateEngine is an engine on b, the backend openBackend opened for op,
// with no provider: nothing in the cloud is read or touched.
func (c *common) stateEngine(env *Env, b statemgr.Backend, op string) (*engine.Engine, error) {
	s, err := c.settings(env, op)
	if err != nil {
		return nil, err
	}
	opts := s.Engine
	opts.Env = c.env
	return engine.New(nil, b, opts), nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func cmdState(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("state", env)
	var c common
	c.register(fs, env)
	force := fs.Bool("force", false, "push: overwrite even when lineage or serial do not match")
	id := fs.String("id", "", "list: only the objects whose provider ID is `ID` (Terraform's -id)")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fmt.Errorf("state needs a subcommand: list [ADDRESS…], show NAME, mv FROM TO, rm NAME…, pull, push FILE, backups, restore KEY, rekey")
	}
	b, err := c.openBackend(ctx, env, "state "+pos[0])
	if err != nil {
		return err
	}
	switch pos[0] {
	case "list", "show", "mv", "rm":
		e, err := c.stateEngine(env, b, "state "+pos[0])
		if err != nil {
			return err
		}
		return stateRepair(ctx, env, e, pos, *id, c.terraform())
	}
	lock := func() (func(), error) {
		info := lockInfo(env, "state "+pos[0])
		l, err := b.Lock(ctx, info)
		if err != nil {
			return nil, fmt.Errorf("lock state (%s): %w", b.Describe(), err)
		}
		return func() { _ = l.Unlock(context.WithoutCancel(ctx)) }, nil
	}
	tb, terraform := b.(*tflayout.Backend)
	switch {
	case terraform && pos[0] == "pull" && len(pos) == 1:
		return tfStatePull(ctx, env, tb)
	case terraform && pos[0] == "push" && len(pos) == 2:
		return tfStatePush(ctx, env, tb, pos[1], *force, lock)
	case pos[0] == "pull" && len(pos) == 1:
		st, err := b.Read(ctx)
		if err != nil {
			return err
		}
		if st == nil {
			return fmt.Errorf("no state in %s", b.Describe())
		}
		data, err := state.Encode(st)
		if err != nil {
			return err
		}
		_, err = env.Stdout.Write(data)
		return err
	case pos[0] == "push" && len(pos) == 2:
		data, err := os.ReadFile(pos[1])
		if err != nil {
			return fmt.Errorf("read state to push: %w", err)
		}
		st, err := state.Decode(pos[1], data)
		if err != nil {
			return err
		}
		unlock, err := lock()
		if err != nil {
			return err
		}
		defer unlock()
		cur, err := b.Read(ctx)
		if err != nil && !*force {
			return err
		}
		if cur != nil && !*force {
			if cur.Metadata.Lineage != st.Metadata.Lineage {
				return fmt.Errorf("refusing to push: lineage %s differs from the current state's %s (another state's history); use --force to overwrite", st.Metadata.Lineage, cur.Metadata.Lineage)
			}
			if st.Metadata.Serial <= cur.Metadata.Serial {
				return fmt.Errorf("refusing to push: serial %d is not newer than the current %d; use --force to overwrite", st.Metadata.Serial, cur.Metadata.Serial)
			}
		}
		if cur != nil {
			if _, err := b.Backup(ctx, cur); err != nil {
				return fmt.Errorf("back up state before push: %w", err)
			}
			if *force && st.Metadata.Serial <= cur.Metadata.Serial {
				st.Metadata.Serial = cur.Metadata.Serial + 1
			}
		}
		if err := b.Write(ctx, st, statemgr.WriteOptions{Force: *force}); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Pushed %s to %s (serial %d).\n", pos[1], b.Describe(), st.Metadata.Serial)
		return nil
	case pos[0] == "backups" && len(pos) == 1:
		list, err := b.ListBackups(ctx)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			fmt.Fprintln(env.Stdout, "No backups.")
		}
		for _, bi := range list {
			fmt.Fprintf(env.Stdout, "%s  serial %d  %s\n", bi.Created.UTC().Format("2006-01-02T15:04:05Z"), bi.Serial, bi.Key)
		}
		return nil
	case terraform && pos[0] == "restore" && len(pos) == 2:
		if done, err := tfStateRestore(ctx, env, tb, pos[1], lock); done || err != nil {
			return err
		}
		fallthrough // a backup made before Kyku kept the Terraform state with it
	case pos[0] == "restore" && len(pos) == 2:
		old, err := b.ReadBackup(ctx, pos[1])
		if err != nil {
			return err
		}
		unlock, err := lock()
		if err != nil {
			return err
		}
		defer unlock()
		cur, err := b.Read(ctx)
		if err != nil {
			return err
		}
		if cur != nil {
			if _, err := b.Backup(ctx, cur); err != nil {
				return fmt.Errorf("back up state before restore: %w", err)
			}
			if cur.Metadata.Lineage != old.Metadata.Lineage {
				return fmt.Errorf("refusing to restore: backup lineage %s differs from the current state's %s", old.Metadata.Lineage, cur.Metadata.Lineage)
			}
			old.Metadata.Serial = cur.Metadata.Serial + 1 // serial only rises
		}
		if err := b.Write(ctx, old, statemgr.WriteOptions{}); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Restored %s (now serial %d).\n", pos[1], old.Metadata.Serial)
		return nil
	case pos[0] == "rekey" && len(pos) == 1:
		r, err := statemgr.Reseal(ctx, b, lockInfo(env, "state rekey"))
		if err != nil {
			return err
		}
		what := "no state"
		if r.State {
			what = "the state"
		}
		fmt.Fprintf(env.Stdout, "Rewrote %s, %s and %s (saved plans, audit records) in %s with the configured key.\n", what, noun.Count(r.Backups, "backup"), noun.Count(r.Objects, "other object"), b.Describe())
		return nil
	}
	return fmt.Errorf("state: unknown subcommand or wrong arguments %q (want list, show NAME, mv FROM TO, rm NAME…, pull, push FILE, backups, restore KEY, rekey)", pos)
}
