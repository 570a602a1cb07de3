package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/kyku/action/internal/schema"
)

// Environment variables read by OptionsFromEnv.
const (
	EnvDir      = "KYKU_SIM_DIR"       // the cloud's directory (default .kyku-state/sim)
	EnvLatency  = "KYKU_SIM_LATENCY"   // "10ms" or a range "5ms-200ms" drawn per call
	EnvFailRate = "KYKU_SIM_FAIL_RATE" // 0–1: probability that a call fails transiently
	EnvFail     = "KYKU_SIM_FAIL"      // "op:Type:name,…": calls failing permanently
	EnvSeed     = "KYKU_SIM_SEED"      // seed of the latency and fault draws (0: random)
	EnvBulk     = "KYKU_SIM_BULK"      // true: list in bulk (the engine reads through ReadMany)
	EnvPageSize = "KYKU_SIM_PAGE_SIZE" // objects per page of a bulk list (default 1000)
)

// DefaultPageSize is a bulk list's page size when none is set: EC2's
// largest MaxResults.
const DefaultPageSize = 1000

// DefaultDir is where the simulated cloud lives when KYKU_SIM_DIR is unset.
const DefaultDir = ".kyku-state/sim"

// Options configure the simulator.
type Options struct {
	Dir                    string        // the cloud: one JSON file per object
	LatencyMin, LatencyMax time.Duration // every call sleeps a duration drawn from [min, max]
	FailRate               float64       // probability that a call fails transiently
	Fail                   []FailRule    // calls that fail permanently
	Seed                   int64         // seed of the draws; 0 picks one at random
	// Bulk makes Open return a Bulk, which lists objects in pages of
	// PageSize (default DefaultPageSize), each page one call paying the
	// latency, so the engine discovers through ReadMany.
	Bulk     bool
	PageSize int
	// Now stamps the "created" field of new objects; nil means time.Now.
	Now func() time.Time
}

// Op is a provider operation a FailRule matches.
type Op string

// The operations. Lookup counts as a read.
const (
	OpAny    Op = "*"
	OpCreate Op = "create"
	OpRead   Op = "read"
	OpUpdate Op = "update"
	OpDelete Op = "delete"
)

func (o Op) String() string { return string(o) }

// FailRule makes matching calls fail permanently. "*" matches anything in
// each field; Name is the Kyku resource name.
type FailRule struct {
	Op   Op
	Type string
	Name string
}

// String renders the rule as written in KYKU_SIM_FAIL.
func (r FailRule) String() string { return string(r.Op) + ":" + r.Type + ":" + r.Name }

func (r FailRule) matches(op Op, typ, name string) bool {
	return (r.Op == OpAny || r.Op == op) &&
		(r.Type == "*" || r.Type == typ) &&
		(r.Name == "*" || r.Name == name)
}

// OptionsFromEnv reads the KYKU_SIM_* variables through getenv (nil reads
// nothing). A bad value is an error naming the variable and the value.
func OptionsFromEnv(getenv func(string) string) (Options, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	opts := Options{Dir: DefaultDir}
	if d := getenv(EnvDir); d != "" {
		opts.Dir = d
	}
	if err := opts.set(EnvLatency, getenv(EnvLatency)); err != nil {
		return Options{}, err
	}
	if err := opts.set(EnvFailRate, getenv(EnvFailRate)); err != nil {
		return Options{}, err
	}
	if err := opts.set(EnvFail, getenv(EnvFail)); err != nil {
		return Options{}, err
	}
	for _, name := range []string{EnvSeed, EnvBulk, EnvPageSize} {
		if err := opts.set(name, getenv(name)); err != nil {
			return Options{}, err
		}
	}
	return opts, nil
}

// set parses one variable's value into o; empty means "unset".
func (o *Options) set(name, v string) error {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil
	}
	var err error
	switch name {
	case EnvDir:
		o.Dir = v
	case EnvLatency:
		o.LatencyMin, o.LatencyMax, err = parseLatency(v)
	case EnvFailRate:
		o.FailRate, err = parseRate(v)
	case EnvFail:
		o.Fail, err = ParseFailRules(v)
	case EnvSeed:
		o.Seed, err = strconv.ParseInt(v, 10, 64)
		if err != nil {
			err = fmt.Errorf("want an integer")
		}
	case EnvBulk:
		o.Bulk, err = strconv.ParseBool(v)
		if err != nil {
			err = fmt.Errorf("want true or false")
		}
	case EnvPageSize:
		o.PageSize, err = strconv.Atoi(v)
		if err != nil || o.PageSize < 1 {
			err = fmt.Errorf("want a positive integer")
		}
	}
	if err != nil {
		return fmt.Errorf("sim: %s=%q: %w", name, v, err)
	}
	return nil
}

func parseLatency(v string) (lo, hi time.Duration, err error) {
	const want = "want a duration like 10ms or a range like 5ms-200ms"
	a, b, isRange := strings.Cut(v, "-")
	if !isRange || a == "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return 0, 0, fmt.Errorf("%s", want)
		}
		return d, d, nil
	}
	lo, err1 := time.ParseDuration(strings.TrimSpace(a))
	hi, err2 := time.ParseDuration(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || lo < 0 || hi < 0 {
		return 0, 0, fmt.Errorf("%s", want)
	}
	if lo > hi {
		return 0, 0, fmt.Errorf("range minimum %s is above its maximum %s", lo, hi)
	}
	return lo, hi, nil
}

func parseRate(v string) (float64, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
		return 0, fmt.Errorf("want a probability between 0 and 1")
	}
	return f, nil
}

// ParseFailRules parses KYKU_SIM_FAIL's syntax: comma-separated rules
// op:Type:name, op one of create, read, update, delete or *, Type a Kyku
// type or *, name a Kyku resource name or *.
func ParseFailRules(v string) ([]FailRule, error) {
	var rules []FailRule
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		f := strings.Split(part, ":")
		if len(f) != 3 || f[0] == "" || f[1] == "" || f[2] == "" {
			return nil, fmt.Errorf("rule %q: want op:Type:name, e.g. create:Vm:web", part)
		}
		r := FailRule{Op: Op(f[0]), Type: f[1], Name: f[2]}
		switch r.Op {
		case OpAny, OpCreate, OpRead, OpUpdate, OpDelete:
		default:
			return nil, fmt.Errorf("rule %q: unknown operation %q (want create, read, update, delete or *)", part, f[0])
		}
		if _, ok := schema.Lookup(r.Type); !ok && r.Type != "*" {
			return nil, fmt.Errorf("rule %q: unknown type %q (want one of %s or *)", part, r.Type, strings.Join(schema.Names(), ", "))
		}
		rules = append(rules, r)
	}
	return rules, nil
}
