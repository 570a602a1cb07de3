package tfplugin

import "syscall"

// keeperChildAttr: the provider dies with its keeper (a keeper killed
// leaves no provider behind).
func keeperChildAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
