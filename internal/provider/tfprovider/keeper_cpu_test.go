package tfprovider_test

import (
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/kyku/action/internal/provider/tfprovider"
	"github.com/kyku/action/internal/tfplugin"
)

// serveKeeper is the test binary as a journal keeper. With args (as
// measuredKeeper starts it: a file, and optionally a CPU profile's stem), it
// appends its own CPU time (user, then system, in nanoseconds) to the first
// once it is done, and writes a CPU profile of its run to the second, its process ID appended.
func serveKeeper(args []string) int {
	if len(args) > 1 {
		if f, err := os.Create(fmt.Sprintf("%s.%d", args[1], os.Getpid())); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer func() { pprof.StopCPUProfile(); f.Close() }()
			}
		}
	}
	code := tfplugin.ServeKeeper(os.Stdin, os.Stdout, os.Stderr)
	if len(args) > 0 {
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
			if f, err := os.OpenFile(args[0], os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
				fmt.Fprintln(f, ru.Utime.Nano(), ru.Stime.Nano())
				f.Close()
			}
		}
	}
	return code
}

// measuredKeeper has the world's providers launched by a journal keeper
// that reports its CPU to cpuFile (keeperCPU) and profiles itself to
// profile when it is not empty.
func measuredKeeper(cpuFile, profile string) func(*tfprovider.Config) {
	return func(pc *tfprovider.Config) {
		pc.Keeper = []string{os.Args[0], tfplugin.KeeperArg, cpuFile}
		if profile != "" {
			pc.Keeper = append(pc.Keeper, profile)
		}
	}
}

// keeperCPU is the CPU the keepers that reported to cpuFile spent in
// all, and of it the system's.
func keeperCPU(cpuFile string) (total, sys time.Duration, err error) {
	data, err := os.ReadFile(cpuFile)
	if err != nil {
		return 0, 0, err
	}
	for line := range strings.Lines(string(data)) {
		var u, s int64
		if _, err := fmt.Sscan(line, &u, &s); err != nil {
			return 0, 0, fmt.Errorf("%s: %w", cpuFile, err)
		}
		total += time.Duration(u + s)
		sys += time.Duration(s)
	}
	return total, sys, nil
}
