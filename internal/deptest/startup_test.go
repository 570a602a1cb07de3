package deptest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kyku/action/internal/buildtest"
)

// heavyInit are packages whose initialisation (or whose mere presence) made
// every start of a Kyku binary slower, each with why it is not linked
// (docs/benchmarks.md, "Start-up", has the figures).
var heavyInit = map[string]string{
	"cloud.google.com/go/storage":                                         "the GCS backend speaks the JSON API itself (internal/statemgr/gcs/client.go); the library links gRPC, xDS, OpenTelemetry and Cloud Monitoring, 2 MB of descriptors built at start",
	"golang.org/x/net/trace":                                              "its html/template calls reflect's MethodByName, after which the linker keeps every exported method of every type: 19 MB of EC2 client nobody calls, and the memory to map it",
	"github.com/aws/aws-sdk-go-v2/service/rds/schemas":                    "rds after v1.132.2 builds 7,000 schemas at start; the AWS provider speaks it through its own client (internal/provider/aws/rdsapi)",
	"github.com/aws/aws-sdk-go-v2/service/ssm/schemas":                    "ssm after v1.79.3 builds 7,900 schemas at start; the AWS provider speaks it through its own client (internal/provider/aws/ssmapi)",
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/schemas": "elasticloadbalancingv2 after v1.63.9 builds 2,300 schemas at start; the AWS provider speaks it through its own client (internal/provider/aws/elbapi)",
	"github.com/aws/aws-sdk-go-v2/service/kms/schemas":                    "kms after v1.60.0 builds 1,900 schemas at start (go.mod pins it)",
}

// TestNoHeavyInitLinked: none of the four binaries links a package of
// heavyInit.
func TestNoHeavyInitLinked(t *testing.T) {
	for _, cmd := range []string{"kyku", "kyku-engine", "action", "bot"} {
		for _, d := range deps(t, "github.com/kyku/action/cmd/"+cmd) {
			if why, ok := heavyInit[d]; ok {
				t.Errorf("cmd/%s links %s: %s", cmd, d, why)
			}
		}
	}
}

// Bounds of what `kyku version` allocates while its packages initialise,
// in bytes (GODEBUG=inittrace=1; allocation is deterministic, time is not).
// 353 KB in 141 packages on 2026-12-06, once the AWS SDK, OPA, hcloud-go,
// the Prometheus client and OpenPGP had moved to kyku-engine
// (TestKykuLinksNoEngineParts);
// 2.4 MB in 290 packages before, 8.0 MB before that.
const (
	maxInitBytes      = 400_000
	maxOwnInitBytes   = 1 << 10  // per Kyku package: sentinel errors, nothing built
	maxOtherInitBytes = 40 << 10 // per package outside initGroups (go-cty, 33 KB, is the largest)
)

// initGroups are the dependencies whose initialisation every command pays,
// `kyku version` too: Go initialises each package a binary links before
// main runs, and kyku links these for the commands it runs itself (the
// AWS SDK, OPA, hcloud-go and the Prometheus client are kyku-engine's). Each
// group has a budget for what all its packages together allocate at
// start, about a tenth above what they allocated on 2026-12-06
// (BenchmarkStartupParts measures what each costs in CPU). A group that
// grows (another AWS service, an upgrade that builds more at init) fails
// TestVersionStartsLean until someone has looked, as does any other
// package above maxOtherInitBytes.
var initGroups = []struct {
	prefix, why string
	budget      int
}{
	{"golang.org/x/text/", "the HCL language's textdecodebase64 and textencodebase64 (internal/lang/funcs, for .tf configurations): the IANA character set index: 55 KB", 62_000},
	{"github.com/zclconf/go-cty-yaml", "the HCL language's yamlencode and yamldecode (internal/lang/funcs): go-cty-yaml's tag tables: 41 KB", 46_000},
}

// buildDir holds the binaries built for this test process (removed by
// TestMain).
var buildDir string

var makeBuildDir = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "kyku-startup")
	buildDir = dir
	return dir, err
})

var (
	buildsMu sync.Mutex
	builds   = map[string]func() (string, error){}
)

// built is the main package pkg built as Kyku ships (release.yml, the
// Dockerfile: no race detector, CGO_ENABLED=0), once per test process; the
// binary is named for the package's last element.
func built(tb testing.TB, pkg string) string {
	tb.Helper()
	buildsMu.Lock()
	build, ok := builds[pkg]
	if !ok {
		build = sync.OnceValues(func() (string, error) {
			dir, err := makeBuildDir()
			if err != nil {
				return "", err
			}
			bin := filepath.Join(dir, path.Base(pkg))
			out, err := buildtest.Command("-o", bin, pkg).CombinedOutput()
			if err != nil {
				return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
			}
			return bin, nil
		})
		builds[pkg] = build
	}
	buildsMu.Unlock()
	bin, err := build()
	if err != nil {
		tb.Fatal(err)
	}
	return bin
}

// kykuBinary is cmd/kyku built as it ships.
func kykuBinary(tb testing.TB) string {
	tb.Helper()
	return built(tb, "github.com/kyku/action/cmd/kyku")
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
// are built on first use: sync.OnceValue), the dependencies every command
// initialises stay within their group's budget (initGroups), no other
// package builds much, and all packages together stay under maxInitBytes.
func TestVersionStartsLean(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/kyku")
	}
	costs := initCosts(t, kykuBinary(t), "version")
	total := 0
	group := make([]int, len(initGroups))
costs:
	for _, c := range costs {
		total += c.bytes
		if strings.HasPrefix(c.pkg, "github.com/kyku/action/") {
			if c.bytes > maxOwnInitBytes {
				t.Errorf("%s allocates %d bytes (%d allocations) at start; build its tables and regexps on first use (sync.OnceValue)", c.pkg, c.bytes, c.allocs)
			}
			continue
		}
		for i, g := range initGroups {
			if strings.HasPrefix(c.pkg, g.prefix) {
				group[i] += c.bytes
				continue costs
			}
		}
		if c.bytes > maxOtherInitBytes {
			t.Errorf("%s allocates %d bytes (%d allocations) at start of every command; link it only where it is used, or name it in initGroups with the reason", c.pkg, c.bytes, c.allocs)
		}
	}
	for i, g := range initGroups {
		if group[i] > g.budget {
			t.Errorf("the packages under %s allocate %d bytes at start, more than their budget of %d (%s): find what grew (GODEBUG=inittrace=1 kyku version)", g.prefix, group[i], g.budget, g.why)
		}
	}
	if total > maxInitBytes {
		var top []string
		for _, c := range costs[:min(10, len(costs))] {
			top = append(top, fmt.Sprintf("  %s: %d bytes", c.pkg, c.bytes))
		}
		t.Errorf("kyku version allocates %d bytes initialising its packages, more than %d; the largest:\n%s", total, maxInitBytes, strings.Join(top, "\n"))
	}
	t.Logf("kyku version: %d bytes allocated at start by %d packages; by group %v", total, len(costs), group)
}

// TestStartupPartsResolve: the programs BenchmarkStartupParts and
// BenchmarkVersion build (testdata/startup, which go vet and go test
// leave out) still name packages that exist.
func TestStartupPartsResolve(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-e", "-f", "{{if .Error}}{{.ImportPath}}: {{.Error}}{{end}}", "./testdata/startup/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list ./testdata/startup/...: %v\n%s", err, out)
	}
	if s := strings.TrimSpace(string(out)); s != "" {
		t.Errorf("the start-up benchmarks' programs do not build:\n%s", s)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}
