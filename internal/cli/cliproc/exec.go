package cliproc

import (
	"fmt"
	"syscall"
)

// Exec replaces this process with the engine at path, run with args and
// environ: the same process ID, terminal, signals and exit status, as if
// kyku had run the command itself. It returns only when that fails.
func Exec(path string, args, environ []string) error {
	err := syscall.Exec(path, append([]string{path}, args...), environ)
	return fmt.Errorf("run %s: %w", path, err)
}
