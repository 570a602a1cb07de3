//go:build unix && !linux

package local

import "golang.org/x/sys/unix"

// condLockWait is the fcntl command of the conditional writes' lock: a
// process-associated lock, waited for (condMu excludes this process's
// own Backends).
const condLockWait = unix.F_SETLKW
