package durable

import (
	"os"
	"syscall"
)

// DataSync makes f's data durable, and its size when that changed:
// fdatasync(2), which leaves the rest of the inode (its times) to the
// page cache, and so writes only the data of a write that changes no
// size.
func DataSync(f *os.File) error {
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
	if serr != nil {
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: serr}
	}
	return nil
}
