package deptest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kyku/action/internal/buildtest"
)

// heavyInit are packages whose initialisation (or whose mere presence) made
// every start of a Kyku binary slower, each with why it is not linked
// (README "Benchmarks" has the figures).
var heavyInit = map[string]string{
	"cloud.google.com/go/storage":                                         "the GCS backend speaks the JSON API itself (internal/statemgr/gcs/client.go); the library links gRPC, xDS, OpenTelemetry and Cloud Monitoring, 2 MB of descriptors built at start",
	"golang.org/x/net/trace":                                              "its html/template calls reflect's MethodByName, after which the linker keeps every exported method of every type: 19 MB of EC2 client nobody calls, and the memory to map it",
	"github.com/aws/aws-sdk-go-v2/service/rds/schemas":                    "rds after v1.132.2 builds 7,000 schemas at start (go.mod pins it)",
	"github.com/aws/aws-sdk-go-v2/service/ssm/schemas":                    "ssm after v1.79.3 builds 7,900 schemas at start (go.mod pins it)",
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/schemas": "elasticloadbalancingv2 after v1.63.9 builds 2,300 schemas at start (go.mod pins it)",
	"github.com/aws/aws-sdk-go-v2/service/kms/schemas":                    "kms after v1.60.0 builds 1,900 schemas at start (go.mod pins it)",
}

// TestNoHeavyInitLinked: none of the three binaries links a package of
// heavyInit.
func TestNoHeavyInitLinked(t *testing.T) {
	for _, cmd := range []string{"kyku", "action", "bot"} {
		for _, d := range deps(t, "github.com/kyku/action/cmd/"+cmd) {
			if why, ok := heavyInit[d]; ok {
				t.Errorf("cmd/%s links %s: %s", cmd, d, why)
			}
		}
	}
}

// Bounds of what `kyku version` allocates while its packages initialise,
// in bytes (GODEBUG=inittrace=1; allocation is deterministic, time is not).
// 2.4 MB on 2026-12-02, most of it the AWS SDK's endpoint tables, OPA and
// hcloud-go with the Prometheus client it links; 8.0 MB before.
const (
	maxInitBytes    = 3 << 20
	maxOwnInitBytes = 1 << 10 // per Kyku package: sentinel errors, nothing built
)

// buildDir holds the binary built for this test process (removed by
// TestMain).
var buildDir string

var buildOnce = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "kyku-startup")
	if err != nil {
		return "", err
	}
	buildDir = dir
	bin := filepath.Join(dir, "kyku")
	out, err := buildtest.Command("-o", bin, "github.com/kyku/action/cmd/kyku").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build cmd/kyku: %v\n%s", err, out)
	}
	return bin, nil
})

// kykuBinary is cmd/kyku built as it ships (release.yml, the Dockerfile:
// no race detector, CGO_ENABLED=0).
func kykuBinary(tb testing.TB) string {
	tb.Helper()
	bin, err := buildOnce()
	if err != nil {
		tb.Fatal(err)
	}
	return bin
}

type initCost struct {
	pkg    string
	bytes  int
	allocs int
}

// initCosts runs bin with args under GODEBUG=inittrace=1 and returns what
// each package's initialisation allocated, largest first.
func initCosts(tb testing.TB, bin string, args ...string) []initCost {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("%s %v: %v\n%s", bin, args, err, stderr.String())
	}
	var costs []initCost
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		b, err1 := strconv.Atoi(f[7])
		a, err2 := strconv.Atoi(f[9])
		if err1 != nil || err2 != nil {
			tb.Fatalf("inittrace line %q", sc.Text())
		}
		costs = append(costs, initCost{f[1], b, a})
	}
	if len(costs) == 0 {
		tb.Fatalf("no inittrace lines from %s:\n%s", bin, stderr.String())
	}
	sort.Slice(costs, func(i, j int) bool { return costs[i].bytes > costs[j].bytes })
	return costs
}

// TestVersionStartsLean: `kyku version` initialises only what is cheap.
// Kyku's own packages build nothing at start (tables, regexps and clients
// are built on first use: sync.OnceValue), and all packages together stay
// under maxInitBytes.
func TestVersionStartsLean(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/kyku")
	}
	costs := initCosts(t, kykuBinary(t), "version")
	total := 0
	for _, c := range costs {
		total += c.bytes
		if strings.HasPrefix(c.pkg, "github.com/kyku/action/") && c.bytes > maxOwnInitBytes {
			t.Errorf("%s allocates %d bytes (%d allocations) at start; build its tables and regexps on first use (sync.OnceValue)", c.pkg, c.bytes, c.allocs)
		}
	}
	if total > maxInitBytes {
		var top []string
		for _, c := range costs[:min(10, len(costs))] {
			top = append(top, fmt.Sprintf("  %s: %d bytes", c.pkg, c.bytes))
		}
		t.Errorf("kyku version allocates %d bytes initialising its packages, more than %d; the largest:\n%s", total, maxInitBytes, strings.Join(top, "\n"))
	}
	t.Logf("kyku version: %d bytes allocated at start by %d packages", total, len(costs))
}

// BenchmarkVersion: the whole-process CPU of `kyku version` (user +
// system, from the kernel's accounting of the child), the median over the
// runs (-benchtime Nx), and the peak RSS.
func BenchmarkVersion(b *testing.B) {
	bin := kykuBinary(b)
	var cpu []time.Duration
	var rss int64
	for b.Loop() {
		cmd := exec.Command(bin, "version")
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = max(rss, ru.Maxrss)
		}
	}
	sort.Slice(cpu, func(i, j int) bool { return cpu[i] < cpu[j] })
	b.ReportMetric(float64(cpu[len(cpu)/2].Microseconds())/1e3, "cpu-ms/median")
	b.ReportMetric(float64(cpu[0].Microseconds())/1e3, "cpu-ms/min")
	b.ReportMetric(float64(cpu[len(cpu)-1].Microseconds())/1e3, "cpu-ms/max")
	b.ReportMetric(float64(rss)/1024, "peak-rss-MiB")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}
