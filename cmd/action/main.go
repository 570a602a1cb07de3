// Command action is Kyku's GitHub Action (action.yml runs it): it plans
// pull requests, answers `/kyku` comments, applies a merged pull request's
// reviewed plan and checks drift on a schedule. Everything it does is in
// package action; this file only wires the process to it.
//
// Exit codes: 0 when the run did its job or rightly did nothing (a fork
// pull request, an ignored comment, a `/kyku apply` refused for a reason
// the pull request was told); 1 on any error, a failed apply, a merged pull
// request whose plan was refused (absent or stale: the job fails so that
// the unapplied merge is visible), or drift with fail-on-drift.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	gh "github.com/google/go-github/v88/github"

	"github.com/kyku/action/internal/action"
	"github.com/kyku/action/internal/buildinfo"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/hetzner"
	"github.com/kyku/action/internal/provider/sim"
)

func main() {
	os.Exit(run())
}

func run() int {
	// A cancelled job (SIGTERM, then SIGKILL after a grace period) stops
	// starting new changes; running ones finish and the lock is released.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return action.Run(ctx, action.Env{
		Getenv:    os.Getenv,
		Environ:   os.Environ,
		Stdout:    os.Stdout,
		Now:       time.Now,
		Providers: registry(),
		GitHub:    client,
		Version:   buildinfo.EngineVersion("", ""),
	})
}

// client is the REST client for the runner's API URL (github.com or GHES)
// with the workflow's token, retrying rate limits and 5xx answers.
func client(ctx context.Context, apiURL, token string) (*gh.Client, error) {
	return github.NewTokenClient(ctx, apiURL, token)
}

// registry lists the providers this binary carries.
func registry() provider.Registry {
	return provider.Registry{
		"sim":     sim.Factory,
		"aws":     aws.New,
		"hetzner": hetzner.New,
	}
}
