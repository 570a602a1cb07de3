// Command bot is Kyku's GitHub App: a webhook server that plans pull
// requests (check run + sticky comment), answers `/kyku` commands and
// applies on merge, with state in the projects' S3 backends. Configuration
// is read from the environment (see internal/bot.ConfigFromEnv).
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/workspace"
)

func main() {
	os.Exit(run())
}

func run() int {
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	cfg, err := bot.ConfigFromEnv(os.Getenv, os.ReadFile)
	if err != nil {
		log.Error("configuration invalid", "error", err.Error())
		return 2
	}
	b, err := bot.New(bot.Options{Config: cfg, Open: opener(os.Getenv), Logger: log})
	if err != nil {
		log.Error("cannot start", "error", err.Error())
		return 2
	}
	srv := &http.Server{
		Addr:              cfg.Addr,
		Handler:           b.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	log.Info("listening", "addr", cfg.Addr, "workers", cfg.Workers, "drift_interval", cfg.DriftInterval.String())
	select {
	case err := <-errc:
		log.Error("server failed", "error", err.Error())
		_ = b.Shutdown(context.Background())
		return 1
	case <-ctx.Done():
	}
	// Keep serving while draining: /readyz and /webhook answer 503, so the
	// load balancer moves traffic and GitHub sees a failed delivery it can
	// redeliver; running jobs (applies hold locks) finish.
	log.Info("signal received, draining", "timeout", cfg.DrainTimeout.String())
	dctx, cancel := context.WithTimeout(context.Background(), cfg.DrainTimeout)
	defer cancel()
	code := 0
	if err := b.Shutdown(dctx); err != nil {
		log.Error("drain incomplete", "error", err.Error())
		code = 1
	}
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("server shutdown", "error", err.Error())
	}
	log.Info("stopped")
	return code
}

// opener opens a project's provider and backend from its trusted config.
// The bot keeps nothing that matters on its disk, so a local backend is
// refused: several replicas and restarts must see the same state and locks.
// Every remote backend is accepted (s3, gcs, spaces, http), with the
// encryption the config names.
func opener(getenv func(string) string) review.Opener {
	reg := provider.Registry{"sim": sim.Factory, "aws": aws.New}
	return func(ctx context.Context, cfg *config.Config, env string) (*review.Workspace, error) {
		if cfg.Backend == nil || cfg.Backend.Type == "" || cfg.Backend.Type == "local" {
			return nil, fmt.Errorf("open workspace: the bot needs a remote backend (s3, gcs, spaces or http) in the project's config (state on the bot's disk would be lost)")
		}
		ws, err := workspace.Open(ctx, cfg, workspace.Settings{Env: env, Getenv: getenv}, reg)
		if err != nil {
			return nil, fmt.Errorf("open workspace: %w", err)
		}
		return &review.Workspace{Engine: ws.Engine, Backend: ws.Backend}, nil
	}
}
