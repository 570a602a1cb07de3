package cliproc

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiles is for Kyku's developers: KYKU_CPUPROFILE=FILE writes a CPU
// profile of the whole command and KYKU_MEMPROFILE=FILE a heap profile
// (allocations since start and what is live at exit), both read with `go
// tool pprof`; KYKU_TRACE=FILE an execution trace (`go tool trace`: which
// goroutines ran on which core when, what waited). docs/benchmarks.md says
// how they are used. The returned function writes them; it is a no-op
// without any of the variables.
func startProfiles(getenv func(string) string) (stop func()) {
	cpuPath, memPath, tracePath := getenv("KYKU_CPUPROFILE"), getenv("KYKU_MEMPROFILE"), getenv("KYKU_TRACE")
	if memPath == "" {
		// Go samples allocations for a heap profile nobody reads:
		// 1.4 MB of stack buckets in an apply of 5,000 resources.
		runtime.MemProfileRate = 0
	}
	if cpuPath == "" && memPath == "" && tracePath == "" {
		return func() {}
	}
	var tr *os.File
	if tracePath != "" {
		f, err := os.Create(tracePath)
		if err == nil {
			err = trace.Start(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "kyku: KYKU_TRACE: %v\n", err)
		} else {
			tr = f
		}
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
		if tr != nil {
			trace.Stop()
			if err := tr.Close(); err != nil {
				fmt.Fprintf(os.Stderr, "kyku: KYKU_TRACE: %v\n", err)
			}
		}
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
