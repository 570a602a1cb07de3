package cliproc

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfiles is for Kyku's developers: KYKU_CPUPROFILE=FILE writes a CPU
// profile of the whole command and KYKU_MEMPROFILE=FILE a heap profile
// (allocations since start and what is live at exit), both read with `go
// tool pprof`. docs/benchmarks.md says how they are used. The
// returned function writes them; it is a no-op without either variable.
func startProfiles(getenv func(string) string) (stop func()) {
	cpuPath, memPath := getenv("KYKU_CPUPROFILE"), getenv("KYKU_MEMPROFILE")
	if memPath == "" {
		// Go samples allocations for a heap profile nobody reads:
		// 1.4 MB of stack buckets in an apply of 5,000 resources.
		runtime.MemProfileRate = 0
	}
	if cpuPath == "" && memPath == "" {
		return func() {}
	}
	var cpu *os.File
	if cpuPath != "" {
		f, err := os.Create(cpuPath)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "kyku: KYKU_CPUPROFILE: %v\n", err)
		} else {
			cpu = f
		}
	}
	return func() {
		if cpu != nil {
			pprof.StopCPUProfile()
			if err := cpu.Close(); err != nil {
				fmt.Fprintf(os.Stderr, "kyku: KYKU_CPUPROFILE: %v\n", err)
			}
		}
		if memPath != "" {
			if err := writeHeapProfile(memPath); err != nil {
				fmt.Fprintf(os.Stderr, "kyku: KYKU_MEMPROFILE: %v\n", err)
			}
		}
	}
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC() // the live heap as of the end of the command
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
