// Package workspace owns turning a configuration and the environment a
// front door runs in (CLI flags, Action inputs, bot settings) into a ready
// engine: the provider from an explicit registry and the state backend the
// config names. It holds no state of its own.
package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/statemgr/s3"
)

// Settings are what a front door decides.
type Settings struct {
	Env         string
	Provider    string // overrides the config's provider when set
	StateDir    string // local backend directory (default ".kyku", relative to BaseDir)
	BaseDir     string // directory local paths are relative to (default: the current one)
	LockTimeout time.Duration
	// Lock tuning (zero: the backend's defaults); tests shorten these.
	StaleAfter, Heartbeat, PollInterval time.Duration
	Engine                              engine.Options // Env is set from Env
	Getenv                              func(string) string
}

// Workspace is an opened engine with its provider and backend.
type Workspace struct {
	Engine   *engine.Engine
	Provider provider.Provider
	Backend  statemgr.Backend
}

// Open builds the provider and backend that cfg names and an engine on them.
func Open(ctx context.Context, cfg *config.Config, s Settings, reg provider.Registry) (*Workspace, error) {
	p, err := Provider(ctx, cfg, s, reg)
	if err != nil {
		return nil, err
	}
	b, err := OpenBackend(ctx, cfg.Backend, s)
	if err != nil {
		return nil, err
	}
	opts := s.Engine
	opts.Env = s.Env
	return &Workspace{Engine: engine.New(p, b, opts), Provider: p, Backend: b}, nil
}

// Provider builds the provider cfg names (s.Provider overrides it; "sim"
// when neither says).
func Provider(ctx context.Context, cfg *config.Config, s Settings, reg provider.Registry) (provider.Provider, error) {
	getenv := s.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	name := cfg.Provider.Name
	if s.Provider != "" {
		name = s.Provider
	}
	if name == "" {
		name = "sim"
	}
	return reg.New(ctx, name, cfg.Provider.Settings, getenv)
}

// OpenBackend opens the backend bc describes (nil: local state in StateDir).
func OpenBackend(ctx context.Context, bc *config.Backend, s Settings) (statemgr.Backend, error) {
	getenv := s.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	typ := "local"
	if bc != nil && bc.Type != "" {
		typ = bc.Type
	}
	switch typ {
	case "local":
		dir := s.StateDir
		if bc != nil && bc.Path != "" && dir == "" {
			dir = bc.Path
		}
		if dir == "" {
			dir = ".kyku"
		}
		if !filepath.IsAbs(dir) && s.BaseDir != "" {
			dir = filepath.Join(s.BaseDir, dir)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create state directory: %w", err)
		}
		var retention int
		if bc != nil {
			retention = bc.BackupRetention
		}
		return local.New(dir, s.Env, local.Options{
			LockTimeout: s.LockTimeout, StaleAfter: s.StaleAfter, Heartbeat: s.Heartbeat,
			PollInterval: s.PollInterval, BackupRetention: retention,
		}), nil
	case "s3":
		b, err := s3.New(ctx, s3.Config{
			Bucket: bc.Bucket, Prefix: strings.Trim(bc.Prefix, "/"), Region: bc.Region, Endpoint: bc.Endpoint,
			UsePathStyle: bc.UsePathStyle, KMSKeyID: bc.KMSKeyID, BackupRetention: bc.BackupRetention,
		}, s.Env, s3.Options{
			LockTimeout: s.LockTimeout, StaleAfter: s.StaleAfter, Heartbeat: s.Heartbeat,
			PollInterval: s.PollInterval, Getenv: getenv,
		})
		if err != nil {
			return nil, fmt.Errorf("open s3 backend: %w", err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("unknown backend type %q (want local or s3)", typ)
}
