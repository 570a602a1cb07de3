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
	"os/signal"
	"syscall"

	"golang.org/x/oauth2/google"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/cli/clipolicy"
	"github.com/kyku/action/internal/cli/cliproc"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/hetzner"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/tfinstall/pgpverify"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/workspace/awsstore"
)

// version and commit are kyku's (cmd/kyku), set at link time alike.
var version, commit string

func main() {
	if len(os.Args) == 2 && os.Args[1] == tfplugin.KeeperArg {
		// The journal keeper of one provider process, started by this
		// executable itself (tfplugin/keeper.go): a write to Kyku's pipe
		// once Kyku is gone fails rather than killing it.
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		os.Exit(tfplugin.ServeKeeper(os.Stdin, os.Stdout, os.Stderr))
	}
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
		Keeper:          keeper(os.Getenv),
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

// keeper is the command of the Terraform providers' journal keeper: this
// executable, unless KYKU_JOURNAL_KEEPER=0 turns it off (docs/terraform-state.md,
// "An apply killed with SIGKILL": it costs a process beside each provider
// process, its CPU and two data syncs per create). nil: no keeper (turned
// off, or this executable cannot be found), providers are kyku-engine's own
// children.
func keeper(getenv func(string) string) []string {
	if getenv("KYKU_JOURNAL_KEEPER") == "0" {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{self, tfplugin.KeeperArg}
}
