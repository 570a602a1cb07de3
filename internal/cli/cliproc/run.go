package cliproc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/progress"
)

// Main runs the CLI with args as this process, with env's streams, getenv
// and parts (Providers, AWS, Policies, Version; the rest is filled in
// here), and returns its exit code.
func Main(args []string, env cli.Env) int {
	args, err := chdir(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kyku: %v\n", err)
		return 1
	}
	tuneGC(env.Getenv)
	procsByEnv.Store(env.Getenv("GOMAXPROCS") != "")
	stopProfiles := startProfiles(env.Getenv)
	code := run(args, env)
	stopProfiles()
	return code
}

func run(args []string, env cli.Env) int {
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
	env.Stdin, env.Stdout, env.Stderr = os.Stdin, os.Stdout, os.Stderr
	env.StdoutIsTerminal = progress.IsTerminal(os.Stdout)
	env.Interrupted = interrupted
	env.ProviderStarted = providerStarted
	env.TerraformLoaded = terraformLoaded
	env.Executing = executing
	return cli.Run(ctx, args, env)
}

// chdir takes Terraform's global -chdir=DIR off the front of args and
// makes DIR the working directory, as Terraform does before anything
// else (relative paths, -c's among them, start there).
func chdir(args []string) ([]string, error) {
	if len(args) == 0 {
		return args, nil
	}
	dir, ok := strings.CutPrefix(args[0], "-chdir=")
	if !ok {
		dir, ok = strings.CutPrefix(args[0], "--chdir=")
	}
	if !ok {
		return args, nil
	}
	if dir == "" {
		return nil, errors.New("-chdir= names no directory")
	}
	if err := os.Chdir(dir); err != nil {
		return nil, fmt.Errorf("-chdir=%s: %w", dir, err)
	}
	return args[1:], nil
}
