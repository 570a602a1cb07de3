package objstoretest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Gate holds the server of one kind (S) for a test binary.
type Gate[S any] struct {
	Pkg    string // the package that calls Setup ("s3test")
	Binary string // the server's binary ("versitygw")
	Hint   string // why tests skip without it, and how to provide it

	server *S
	skip   string
}

// Start gets the server going: nothing to start when the environment
// already names one (configured), else the binary started by start. ok is
// false when there is neither: tests then skip, and under CI=true err says
// why. stop stops what was started (never nil).
func (g *Gate[S]) Start(configured bool, start func(bin string) (stop func(), err error)) (stop func(), ok bool, err error) {
	if configured {
		return func() {}, true, nil
	}
	bin := binary(g.Binary)
	if bin == "" {
		g.skip = g.Hint
		if os.Getenv("CI") == "true" {
			return func() {}, false, fmt.Errorf("CI=true but %s", g.Hint)
		}
		return func() {}, false, nil
	}
	stop, err = start(bin)
	if err != nil {
		return func() {}, false, fmt.Errorf("start %s: %w", g.Binary, err)
	}
	return stop, true, nil
}

// Ready makes s the server Require returns.
func (g *Gate[S]) Ready(s *S) { g.server = s }

// Require returns the server, or skips tb when there is none.
func (g *Gate[S]) Require(tb testing.TB) *S {
	tb.Helper()
	if g.server == nil {
		why := g.skip
		if why == "" {
			why = g.Pkg + ".Main was not called from TestMain"
		}
		tb.Skip(why)
	}
	return g.server
}

// Main runs setup, the tests, and setup's stop.
func Main(m *testing.M, setup func() (stop func(), err error)) int {
	stop, err := setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	defer stop()
	return m.Run()
}

// binary returns the path of the named binary: on PATH, or in
// $KYKU_CI_CACHE/bin (default ~/.cache/kyku-ci/bin); "" when neither has it.
func binary(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	cache := os.Getenv("KYKU_CI_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "kyku-ci")
	}
	p := filepath.Join(cache, "bin", name)
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p
	}
	return ""
}

// FreeAddr returns a 127.0.0.1 address whose port is free right now.
func FreeAddr() (*net.TCPAddr, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr), nil
}

// Process is a server to run for the test binary's lifetime.
type Process struct {
	Name    string    // for messages
	Cmd     *exec.Cmd // not started; its output goes to Log
	Log     *os.File
	Probe   string // a URL that answers (with any status) once the server is up
	Cleanup func() // removes what the server used, once it has exited
}

// Start starts p, ties its life to the test binary's (so a test timeout
// that panics past TestMain does not leave it running), and waits up to 30 s
// until Probe answers. stop kills it and cleans up.
func Start(p Process) (stop func(), err error) {
	p.Cmd.Stdout, p.Cmd.Stderr = p.Log, p.Log
	dieWithParent(p.Cmd)
	if err := p.Cmd.Start(); err != nil {
		p.Log.Close()
		if p.Cleanup != nil {
			p.Cleanup()
		}
		return nil, err
	}
	exited := make(chan struct{})
	go func() { _ = p.Cmd.Wait(); close(exited) }()
	stop = func() {
		_ = p.Cmd.Process.Kill()
		<-exited
		p.Log.Close()
		if p.Cleanup != nil {
			p.Cleanup()
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(p.Probe)
		if err == nil {
			resp.Body.Close()
			return stop, nil
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(p.Log.Name())
			stop()
			return nil, fmt.Errorf("%s exited early; its log:\n%s", p.Name, log)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(p.Log.Name())
			stop()
			return nil, fmt.Errorf("%s did not answer at %s within 30s; its log:\n%s", p.Name, p.Probe, log)
		}
	}
}

var (
	notBucketChar = regexp.MustCompile(`[^a-z0-9]+`)
	buckets       atomic.Int64
)

// BucketName returns a new bucket name for tb:
// "kyku-<end of tb's name>-<n>-<random>", in lower case.
func BucketName(tb testing.TB) string {
	name := strings.Trim(notBucketChar.ReplaceAllString(strings.ToLower(tb.Name()), "-"), "-")
	if len(name) > 30 {
		name = name[len(name)-30:]
	}
	name = fmt.Sprintf("kyku-%s-%d-%s", strings.Trim(name, "-"), buckets.Add(1), RandHex(3))
	return strings.ReplaceAll(name, "--", "-")
}

// RandHex returns n random bytes as hex.
func RandHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
