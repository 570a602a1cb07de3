// Command kyku is Kyku's command line: validate, plan, apply, destroy,
// refresh, output, graph, import, state and force-unlock.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/hetzner"
	"github.com/kyku/action/internal/provider/sim"
)

// version and commit, when set at link time, replace what Go records in the
// binary (the module version and vcs.revision): release builds use
//
//	go build -ldflags "-X main.version=v1.2.3 -X main.commit=$(git rev-parse HEAD)" ./cmd/kyku
var version, commit string

func main() {
	tuneGC(os.Getenv)
	stopProfiles := startProfiles(os.Getenv)
	code := run()
	stopProfiles()
	os.Exit(code)
}

func run() int {
	// The first Ctrl-C / SIGTERM stops starting new changes; running ones
	// finish, state is saved and the lock released. A second one exits at
	// once (the journal keeps every finished change for the next run).
	// The CLI prints the notice (through the live progress view, which
	// would otherwise draw over it).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	// Asked for, SIGPIPE no longer kills the process when stdout's reader
	// goes away (kyku plan | head -3): the write fails with EPIPE, and the
	// CLI stops the run as on Ctrl-C, stopping its providers and releasing
	// the lock. The signals themselves are dropped (the channel is never
	// read): a closed provider connection raises them too.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	interrupted := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-ctx.Done():
			return
		}
		close(interrupted)
		cancel()
		if _, ok := <-sigs; ok {
			os.Exit(130)
		}
	}()
	return cli.Run(ctx, os.Args[1:], cli.Env{
		Stdin:            os.Stdin,
		Stdout:           os.Stdout,
		Stderr:           os.Stderr,
		Getenv:           os.Getenv,
		Environ:          os.Environ,
		StdoutIsTerminal: progress.IsTerminal(os.Stdout),
		Providers:        registry(),
		Version:          cli.Version{Version: version, Commit: commit},
		Interrupted:      interrupted,
		ProviderStarted:  providerStarted,
	})
}

// registry lists the providers this binary carries.
func registry() provider.Registry {
	return provider.Registry{
		"sim":     sim.Factory,
		"aws":     aws.New,
		"hetzner": hetzner.New,
	}
}
