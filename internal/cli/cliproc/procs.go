package cliproc

import (
	"runtime"
	"sync/atomic"
)

// While an apply runs its changes against Terraform providers, Kyku's
// own process mostly waits: on the providers' answers, on the journal's
// syncs. Each answer wakes a goroutine, and with a second P idle the Go
// scheduler spins a thread up to look for more work, finds none and
// parks it again, thousands of times a second: in an apply of 5,000
// null_resources a tenth of Kyku's CPU went to runtime.findRunnable. So
// a CLI process whose run started Terraform providers (providerStarted,
// terraformLoaded) runs those changes on one P (executing), and gives the
// others back once they end: the plan before them (parsing, expanding,
// settling 50,000 resources on every core) keeps them all. Three pairs
// interleaved on 2 CPUs, the provider's own processes as they were: that
// apply took 1.39–1.48 s of Kyku's CPU against 1.61–1.77 s, in the same
// wall time (4.64–4.84 s against 4.64–5.03 s). A run of Kyku's own types
// (their work in this process) and GOMAXPROCS set in the environment
// keep every P.

// terraformRun reports whether this run started a Terraform provider or
// loaded a Terraform configuration.
var terraformRun atomic.Bool

// procsByEnv reports whether GOMAXPROCS is set in the environment: it
// decides, as GOGC does for the collector.
var procsByEnv atomic.Bool

// executing is cli.Env.Executing: called as an apply starts running its
// changes, it returns what to call once they have all ended.
func executing() (done func()) {
	if !terraformRun.Load() || procsByEnv.Load() {
		return func() {}
	}
	prev := runtime.GOMAXPROCS(1)
	return func() { runtime.GOMAXPROCS(prev) }
}
