// Command bot is Kyku's GitHub App: a webhook server that plans pull
// requests (check run + sticky comment), answers `/kyku` commands and
// applies on merge, with state in the projects' S3 backends. Configuration
// is read from the environment (see internal/bot.ConfigFromEnv).
package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/kyku/action/internal/bot"
)

// envSimRoot is the directory the sim provider's clouds live under (each
// repository's under repo.<numeric ID>/, when the policy allows the sim).
const envSimRoot = "KYKU_BOT_SIM_ROOT"

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
	simRoot := os.Getenv(envSimRoot)
	if simRoot == "" {
		simRoot = "sim"
	}
	opts := bot.Options{Config: cfg, Open: opener(os.Getenv, simRoot), Logger: log}
	warnWithoutSandbox(context.Background(), log, cfg.Policy)
	if cfg.Store != nil {
		store, err := openStore(context.Background(), cfg.Store, os.Getenv)
		if err != nil {
			log.Error("cannot start: the bot's store", "store", cfg.Store.String(), "error", err.Error())
			return 2
		}
		opts.Store = store
		log.Info("jobs are recorded and deliveries deduplicated across replicas; one drift schedule for all",
			"store", cfg.Store.String(), "window", cfg.DedupeWindow.String(), "lease", cfg.Lease.String())
	} else {
		log.Warn("no " + bot.EnvStore + ": a job accepted is lost if this process dies before it ends, deliveries are deduplicated in memory, " +
			"and every replica runs its own drift schedule; set it for durable jobs, or when more than one replica runs")
	}
	if client, err := stsClient(context.Background(), cfg); err != nil {
		log.Error("cannot start: sts client", "error", err.Error())
		return 2
	} else if client != nil {
		opts.STS = client
	}
	b, err := bot.New(opts)
	if err != nil {
		log.Error("cannot start", "error", err.Error())
		return 2
	}
	// The bot's parts run with a context of their own: a signal drains
	// them through Shutdown, it does not cancel them.
	ran := make(chan error, 1)
	go func() { ran <- b.Run(context.Background()) }()
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
		<-ran
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
	if err := <-ran; err != nil {
		log.Error("bot stopped", "error", err.Error())
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

// stsClient is the STS client the bot assumes the policy's roles with (its
// own credentials, from the SDK's default chain); nil without a policy
// naming a role.
func stsClient(ctx context.Context, cfg bot.Config) (*sts.Client, error) {
	if cfg.Policy == nil {
		return nil, nil
	}
	awsCfg, err := loadAWS(ctx, "", false, nil)
	if err != nil {
		return nil, err
	}
	if awsCfg.Region == "" {
		awsCfg.Region = "us-east-1" // STS's global endpoint
	}
	return sts.NewFromConfig(awsCfg), nil
}
