//go:build unix && !linux

package local

import "golang.org/x/sys/unix"

// Without open file description locks, process-associated ones as OpenTofu
// takes: two Backends of one process do not exclude each other, and
// closing another descriptor of the file in this process drops the lock.
const (
	tfSetLock = unix.F_SETLK
	tfGetLock = unix.F_GETLK
)
