package objstoretest

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the server die with the test binary, even when a test
// timeout panics past TestMain's deferred stop.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
