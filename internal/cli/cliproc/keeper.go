package cliproc

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/kyku/action/internal/tfplugin"
)

// ServeKeeper runs the journal keeper of one provider process, and exits
// with its code, when args (the command line after the executable's name)
// ask for it: both executables that run Terraform providers, kyku alone
// and kyku-engine, start themselves as their providers' keepers
// (KeeperCommand). It returns at once for any other command.
func ServeKeeper(args []string) {
	if len(args) != 1 || args[0] != tfplugin.KeeperArg {
		return
	}
	// A write to Kyku's pipe once Kyku is gone fails rather than killing
	// the keeper (tfplugin/keeper.go).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	os.Exit(tfplugin.ServeKeeper(os.Stdin, os.Stdout, os.Stderr))
}

// KeeperCommand is the command of the Terraform providers' journal
// keeper: this executable, unless KYKU_JOURNAL_KEEPER=0 turns it off
// (docs/terraform-state.md, "An apply killed with SIGKILL": it costs a
// process beside each provider process, its CPU and two data syncs per
// create). nil: no keeper (turned off, or this executable cannot be
// found), providers are Kyku's own children.
func KeeperCommand(getenv func(string) string) []string {
	if getenv("KYKU_JOURNAL_KEEPER") == "0" {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{self, tfplugin.KeeperArg}
}
