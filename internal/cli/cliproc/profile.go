package cliproc

import (
	"fmt"
	"io"
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
	endTrace := recordTo("KYKU_TRACE", tracePath, trace.Start, trace.Stop)
	endCPU := recordTo("KYKU_CPUPROFILE", cpuPath, pprof.StartCPUProfile, pprof.StopCPUProfile)
	return func() {
		endTrace()
		endCPU()
		if memPath != "" {
			if err := writeHeapProfile(memPath); err != nil {
				fmt.Fprintf(os.Stderr, "kyku: KYKU_MEMPROFILE: %v\n", err)
			}
		}
	}
}

// recordTo starts a recording (start, stop: a CPU profile's, a trace's)
// into a new file at path, named for errors by variable; the returned
// function stops it and closes the file. Without path, or when it cannot
// start (said on stderr), it records nothing.
func recordTo(variable, path string, start func(io.Writer) error, stop func()) (end func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		if err = start(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "kyku: %s: %v\n", variable, err)
		return func() {}
	}
	return func() {
		stop()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "kyku: %s: %v\n", variable, err)
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
