package deptest

import (
	"bytes"
	"cmp"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

// Start-up is measured against a Go hello world built the same way
// (testdata/startup/hello), the programs run in turn in one loop so that
// all of them see the same machine and the same load: the ratio to the
// hello world is the figure to read, the milliseconds move with the
// machine (docs/benchmarks.md, "Start-up"; .ci/bench-startup prints both benchmarks
// as table rows).

// usage is what one run of a program cost, from the kernel's accounting
// of the child.
type usage struct {
	cpu    time.Duration // user + system
	faults int64         // minor page faults: memory touched for the first time
	rss    int64         // peak resident set, KiB
}

// program is one binary to run, with its arguments.
type program struct {
	name string
	bin  string
	args []string
}

func (p program) run(tb testing.TB) usage {
	tb.Helper()
	cmd := exec.Command(p.bin, p.args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("%s %v: %v\n%s", p.bin, p.args, err, stderr.String())
	}
	u := usage{cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		u.faults, u.rss = ru.Minflt, ru.Maxrss
	}
	return u
}

// runInTurn runs every program once per iteration (-benchtime Nx), each
// iteration starting one further along the list, and returns each
// program's usages by name.
func runInTurn(b *testing.B, progs ...program) map[string][]usage {
	got := map[string][]usage{}
	for i := 0; b.Loop(); i++ {
		for j := range progs {
			p := progs[(i+j)%len(progs)]
			got[p.name] = append(got[p.name], p.run(b))
		}
	}
	return got
}

// median of f over runs (the upper one of an even count).
func median(runs []usage, f func(usage) float64) float64 {
	v := make([]float64, len(runs))
	for i, u := range runs {
		v[i] = f(u)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func cpuMs(u usage) float64  { return float64(u.cpu.Microseconds()) / 1e3 }
func faults(u usage) float64 { return float64(u.faults) }
func rssMiB(u usage) float64 { return float64(u.rss) / 1024 }

// helloProgram is testdata/startup/hello, built as Kyku ships.
func helloProgram(tb testing.TB) program {
	return program{name: "hello", bin: built(tb, "github.com/kyku/action/internal/deptest/testdata/startup/hello")}
}

// BenchmarkVersion: the whole-process CPU of `kyku version` (user +
// system) beside that of a Go hello world built the same way, the two run
// in turn; the medians over the runs (-benchtime Nx), their ratio
// (x-hello; the goal is at most 3), the minor page faults of each
// (start-up CPU follows them closely: most of it is the kernel giving the
// process the memory its packages' initialisation touches) and the peak
// RSS.
func BenchmarkVersion(b *testing.B) {
	hello := helloProgram(b)
	kyku := program{name: "kyku", bin: kykuBinary(b), args: []string{"version"}}
	got := runInTurn(b, hello, kyku)
	k, h := got["kyku"], got["hello"]
	b.ReportMetric(median(k, cpuMs), "cpu-ms/median")
	b.ReportMetric(cpuMs(slices.MinFunc(k, byCPU)), "cpu-ms/min")
	b.ReportMetric(cpuMs(slices.MaxFunc(k, byCPU)), "cpu-ms/max")
	b.ReportMetric(median(h, cpuMs), "hello-cpu-ms/median")
	b.ReportMetric(median(k, cpuMs)/median(h, cpuMs), "x-hello")
	b.ReportMetric(median(k, faults), "faults/median")
	b.ReportMetric(median(h, faults), "hello-faults/median")
	b.ReportMetric(rssMiB(slices.MaxFunc(k, byRSS)), "peak-rss-MiB")
}

func byCPU(a, b usage) int { return cmp.Compare(a.cpu, b.cpu) }
func byRSS(a, b usage) int { return cmp.Compare(a.rss, b.rss) }

// BenchmarkStartupParts: what linking each heavy part of Kyku costs a
// start, whatever the command: Go initialises every package a binary links
// before main runs. Each part is the hello world with that part linked and
// nothing called (testdata/startup/NAME), run in turn with the bare hello
// world and `kyku version`; for each, the median CPU as a multiple of the
// hello world's (NAME-x-hello) and the median minor page faults
// (NAME-faults/median).
func BenchmarkStartupParts(b *testing.B) {
	progs := []program{helloProgram(b), {name: "kyku", bin: kykuBinary(b), args: []string{"version"}}}
	parts := []string{"policy", "aws", "hetzner"}
	for _, name := range parts {
		progs = append(progs, program{name: name, bin: built(b, "github.com/kyku/action/internal/deptest/testdata/startup/"+name)})
	}
	got := runInTurn(b, progs...)
	hello := median(got["hello"], cpuMs)
	b.ReportMetric(hello, "hello-cpu-ms/median")
	b.ReportMetric(median(got["hello"], faults), "hello-faults/median")
	for _, name := range append([]string{"kyku"}, parts...) {
		b.ReportMetric(median(got[name], cpuMs)/hello, name+"-x-hello")
		b.ReportMetric(median(got[name], faults), name+"-faults/median")
	}
}
