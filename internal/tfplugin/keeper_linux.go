package tfplugin

import (
	"os"
	"syscall"
)

// keeperChildAttr: the provider dies with its keeper (a keeper killed
// leaves no provider behind).
func keeperChildAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// datasync writes f's data, and what reading it back needs, to disk
// (fdatasync: not its times).
func datasync(f *os.File) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := sc.Control(func(fd uintptr) {
		for {
			if serr = syscall.Fdatasync(int(fd)); serr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	return serr
}
