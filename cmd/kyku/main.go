// Command kyku is Kyku's command line: validate, plan, apply, destroy,
// refresh, output, graph, import, state and force-unlock.
//
// kyku links no cloud SDK, no policy engine and no OpenPGP, so that a
// command starts as fast as a small Go program: it answers version and
// help itself and runs every other command in kyku-engine, installed
// beside it, which links the AWS and Hetzner providers, the s3 and spaces
// backends, aws-kms keys, the policy engine and the check of what provider
// registries sign (docs/architecture.md, "Two executables"). Without a
// kyku-engine beside it (go run ./cmd/kyku), kyku runs the command itself,
// with the sim provider, Terraform providers from a mirror or the cache
// and the backends that need no SDK, and refuses what needs kyku-engine,
// naming it.
package main

import (
	"fmt"
	"os"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/cli/cliproc"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
)

// version and commit, when set at link time, replace what Go records in the
// binary (the module version and vcs.revision): release builds use
//
//	go build -ldflags "-X main.version=v1.2.3 -X main.commit=$(git rev-parse HEAD)" ./cmd/kyku
//
// and stamp kyku-engine alike (it refuses a kyku of another build).
var version, commit string

func main() {
	args := os.Args[1:]
	cliproc.ServeKeeper(args)
	if !cliproc.AnswersItself(args) {
		if err := runEngine(args); err != nil {
			fmt.Fprintf(os.Stderr, "kyku: %v\n", err)
			os.Exit(1)
		}
	}
	os.Exit(cliproc.Main(args, cli.Env{
		Getenv:    os.Getenv,
		Environ:   os.Environ,
		Providers: registry(),
		Version:   cli.Version{Version: version, Commit: commit},
		Keeper:    cliproc.KeeperCommand(os.Getenv),
	}))
}

// runEngine runs args in the kyku-engine beside this executable, in place
// of this process, and returns only when there is none (nil: kyku runs
// them itself) or it cannot be run.
func runEngine(args []string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find kyku-engine: %w", err)
	}
	engine, err := cliproc.FindEngine(self)
	if err != nil || engine == "" {
		return err
	}
	return cliproc.Exec(engine, args, cliproc.EngineEnviron(os.Environ()))
}

// registry lists the providers kyku runs itself; aws and hetzner are
// kyku-engine's.
func registry() provider.Registry {
	return provider.Registry{
		"sim":     sim.Factory,
		"aws":     cliproc.NotLinked("aws", "AWS SDK"),
		"hetzner": cliproc.NotLinked("hetzner", "Hetzner Cloud client"),
	}
}
