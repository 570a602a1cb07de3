package progress

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/plan"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("write golden: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

func TestPlainGolden(t *testing.T) {
	var buf bytes.Buffer
	p := NewPlain(&buf, Options{})
	for _, s := range scriptedApply() {
		for _, e := range s.events {
			p.Event(e)
		}
	}
	p.Close()
	if bytes.Contains(buf.Bytes(), []byte("\x1b")) {
		t.Errorf("plain output contains an escape sequence:\n%q", buf.String())
	}
	golden(t, "plain.golden", buf.Bytes())
}

func TestPlainLine(t *testing.T) {
	tests := []struct {
		name string
		e    Event
		want string
	}{
		{"started", Event{Kind: Started, Action: plan.Create, Type: "Vpc", Name: "main-vpc"}, `create Vpc "main-vpc": started`},
		{"done with id", Event{Kind: Done, Action: plan.Create, Type: "Vpc", Name: "main-vpc", ID: "1001", Elapsed: ms(1234)}, `create Vpc "main-vpc": done in 1.2s (id 1001)`},
		{"done without id", Event{Kind: Done, Action: plan.Destroy, Type: "Vpc", Name: "v", Elapsed: ms(12)}, `destroy Vpc "v": done in 12ms`},
		{"retrying", Event{Kind: Retrying, Action: plan.Update, Type: "Vm", Name: "web", Attempt: 1, Err: fmt.Errorf("throttled")}, `update Vm "web": retrying after attempt 1: throttled`},
		{"failed", Event{Kind: Failed, Action: plan.Create, Type: "Vm", Name: "web", Elapsed: 3 * time.Second, Err: fmt.Errorf("boom")}, `create Vm "web": FAILED after 3.0s: boom`},
		{"skipped", Event{Kind: Skipped, Action: plan.Create, Type: "LoadBalancer", Name: "lb", Err: fmt.Errorf(`dependency "web" failed`)}, `create LoadBalancer "lb": skipped (dependency "web" failed)`},
		{"skipped without cause", Event{Kind: Skipped, Action: plan.Create, Type: "LoadBalancer", Name: "lb"}, `create LoadBalancer "lb": skipped`},
		{"multi-line error stays on one line", Event{Kind: Failed, Action: plan.Create, Type: "Vm", Name: "web", Err: fmt.Errorf("a\n\tb\x1b[31mc")}, `create Vm "web": FAILED after 0ms: a b [31mc`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, PlainLine(tt.e)); diff != "" {
				t.Errorf("PlainLine (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormatElapsed(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0ms"},
		{0, "0ms"},
		{1400 * time.Microsecond, "1ms"},
		{ms(340), "340ms"},
		{ms(999), "999ms"},
		{999600 * time.Microsecond, "1.0s"},
		{ms(1000), "1.0s"},
		{ms(1249), "1.2s"},
		{ms(1250), "1.3s"},
		{ms(59940), "59.9s"},
		{ms(59960), "1m00s"},
		{ms(64300), "1m04s"},
		{time.Hour + 2*time.Minute + 3*time.Second, "1h02m03s"},
		{3599 * time.Second, "59m59s"},
		{time.Hour, "1h00m00s"},
		{100*time.Hour + 5*time.Second, "100h00m05s"},
	}
	for _, tt := range tests {
		t.Run(tt.d.String(), func(t *testing.T) {
			if diff := cmp.Diff(tt.want, FormatElapsed(tt.d)); diff != "" {
				t.Errorf("FormatElapsed(%v) (-want +got):\n%s", tt.d, diff)
			}
		})
	}
}

// trickleWriter writes one byte at a time, yielding in between, so that
// unsynchronised writers would interleave their lines.
type trickleWriter struct {
	mu  sync.Mutex
	buf []byte
}

func (w *trickleWriter) Write(p []byte) (int, error) {
	for _, b := range p {
		w.mu.Lock()
		w.buf = append(w.buf, b)
		w.mu.Unlock()
		runtime.Gosched()
	}
	return len(p), nil
}

func TestPlainConcurrentLinesNeverInterleave(t *testing.T) {
	var w trickleWriter
	p := NewPlain(&w, Options{})
	const workers, each = 16, 20
	var wg sync.WaitGroup
	want := map[string]int{}
	for g := range workers {
		for i := range each {
			want[PlainLine(Event{Kind: Done, Action: plan.Create, Type: "Vm", Name: fmt.Sprintf("vm-%d-%d", g, i), Elapsed: ms(g*10 + i)})]++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				p.Event(Event{Kind: Done, Action: plan.Create, Type: "Vm", Name: fmt.Sprintf("vm-%d-%d", g, i), Elapsed: ms(g*10 + i)})
			}
		}()
	}
	wg.Wait()
	p.Close()
	got := map[string]int{}
	for _, line := range strings.Split(strings.TrimSuffix(string(w.buf), "\n"), "\n") {
		got[line]++
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

// TestPlainNotice: a notice is its own line among the events' lines, on one
// line whatever it holds.
func TestPlainNotice(t *testing.T) {
	var buf bytes.Buffer
	p := NewPlain(&buf, Options{})
	p.Event(Event{Kind: Started, Action: plan.Create, Type: "Vpc", Name: "net"})
	p.Notice("kyku: interrupted:\nfinishing")
	p.Close()
	want := "create Vpc \"net\": started\nkyku: interrupted: finishing\n"
	if got := buf.String(); got != want {
		t.Errorf("plain log = %q, want %q", got, want)
	}
}

// TestPlainWritesLinesTogetherAndSoon: lines arriving together are one
// write, which comes flushAfter after the first of them without Close; a
// notice writes at once, after the lines before it; after Close every
// line is written at once. The clock is synctest's: the write is expected
// at exactly flushAfter.
func TestPlainWritesLinesTogetherAndSoon(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &signalWriter{wrote: make(chan string, 10)}
		p := NewPlain(w, Options{})
		start := time.Now()
		for i := range 3 {
			p.Event(Event{Kind: Started, Action: plan.Create, Type: "Vpc", Name: fmt.Sprint("net-", i)})
		}
		got := <-w.wrote
		if want := "create Vpc \"net-0\": started\ncreate Vpc \"net-1\": started\ncreate Vpc \"net-2\": started\n"; got != want {
			t.Errorf("first write %q, want the three lines at once: %q", got, want)
		}
		if waited := time.Since(start); waited != flushAfter {
			t.Errorf("written after %v, want flushAfter (%v)", waited, flushAfter)
		}
		p.Event(Event{Kind: Started, Action: plan.Create, Type: "Vm", Name: "web"})
		p.Notice("kyku: interrupted")
		w.atOnce(t, "a notice", "create Vm \"web\": started\nkyku: interrupted\n")
		p.Close()
		p.Event(Event{Kind: Started, Action: plan.Create, Type: "Vm", Name: "late"})
		w.atOnce(t, "an event after Close", "create Vm \"late\": started\n")
	})
}

type signalWriter struct{ wrote chan string }

func (w *signalWriter) Write(b []byte) (int, error) {
	w.wrote <- string(b)
	return len(b), nil
}

// atOnce checks that what wrote, with no time passing, is want.
func (w *signalWriter) atOnce(t *testing.T, what, want string) {
	t.Helper()
	select {
	case got := <-w.wrote:
		if got != want {
			t.Errorf("%s wrote %q, want %q", what, got, want)
		}
	default:
		t.Errorf("%s was not written at once", what)
	}
}
