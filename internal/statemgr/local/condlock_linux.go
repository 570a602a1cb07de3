package local

import "golang.org/x/sys/unix"

// condLockWait is the fcntl command of the conditional writes' lock: an
// open file description lock, waited for, which also excludes another
// descriptor of this process.
const condLockWait = unix.F_OFD_SETLKW
