// Command kyku-engine runs kyku's commands for the kyku beside it, which
// starts it for every command but version and help: it links what kyku
// does not, the AWS and Hetzner providers, the s3 and spaces backends,
// aws-kms keys and the policy engine (docs/architecture.md, "Two
// executables"). Started by a kyku of another build it refuses, in one
// line; run on its own (go run ./cmd/kyku-engine plan -c examples/aws) it
// is the whole command line.
package main

import (
	"fmt"
	"os"

	"golang.org/x/oauth2/google"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/cli/clipolicy"
	"github.com/kyku/action/internal/cli/cliproc"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/hetzner"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/tfinstall/pgpverify"
	"github.com/kyku/action/internal/workspace/awsstore"
)

// version and commit are kyku's (cmd/kyku), set at link time alike.
var version, commit string

func main() {
	cliproc.ServeKeeper(os.Args[1:])
	if err := cliproc.CheckStartedBy(os.Getenv); err != nil {
		fmt.Fprintf(os.Stderr, "kyku-engine: %v\n", err)
		os.Exit(1)
	}
	// What kyku passed is not passed on (to Terraform providers).
	os.Unsetenv(cliproc.BuildEnv)
	os.Exit(cliproc.Main(os.Args[1:], cli.Env{
		Getenv:    os.Getenv,
		Environ:   os.Environ,
		Providers: registry(),
		AWS:       awsstore.Store{},
		Google:    google.DefaultClient,
		Policies:  clipolicy.Load,
		// What a provider registry signs.
		VerifySignature: pgpverify.Verify,
		Version:         cli.Version{Version: version, Commit: commit},
		Keeper:          cliproc.KeeperCommand(os.Getenv),
	}))
}

// registry lists the providers kyku-engine carries.
func registry() provider.Registry {
	return provider.Registry{
		"sim":     sim.Factory,
		"aws":     aws.New,
		"hetzner": hetzner.New,
	}
}
