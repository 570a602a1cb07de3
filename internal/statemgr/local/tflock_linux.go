package local

import "golang.org/x/sys/unix"

// The fcntl commands of the Terraform layout's lock: open file description
// locks, which conflict with OpenTofu's process-associated ones and also
// with another descriptor's in this process (two Backends of one process
// exclude each other), and are not dropped when another descriptor of the
// file is closed.
const (
	tfSetLock = unix.F_OFD_SETLK
	tfGetLock = unix.F_OFD_GETLK
)
