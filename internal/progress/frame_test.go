package progress

import (
	"bytes"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/plan"
)

func TestRedraw(t *testing.T) {
	tests := []struct {
		name string
		prev int
		perm []string
		live []string
		want string
	}{
		{"first frame erases nothing", 0, nil, []string{"a", "status"}, "a\nstatus"},
		{"one line: clear it, no cursor up", 1, nil, []string{"status"}, "\r\x1b[2Kstatus"},
		{"three lines: two cursor ups", 3, []string{"✓ x"}, []string{"b", "status"},
			"\r\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K✓ x\nb\nstatus"},
		{"permanent lines end in newline, live region does not", 2, []string{"✓ x", "✗ y"}, []string{"status"},
			"\r\x1b[2K\x1b[1A\x1b[2K✓ x\n✗ y\nstatus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, redraw(tt.prev, tt.perm, tt.live)); diff != "" {
				t.Errorf("redraw (-want +got):\n%s", diff)
			}
		})
	}
}

type frameOut struct {
	Perm []string
	Live []string
}

func TestBoardFrame(t *testing.T) {
	start := func(typ, name string, d time.Duration) Event {
		return Event{Kind: Started, Action: plan.Create, Type: typ, Name: name, Time: at(d)}
	}
	tests := []struct {
		name   string
		total  int
		events []Event
		now    time.Time
		spin   int
		st     style
		final  bool
		want   frameOut
	}{
		{
			name: "empty board shows only the status line",
			now:  at(0),
			want: frameOut{Live: []string{"Applying: 0 done, 0 running"}},
		},
		{
			name:   "running sorted by start time then name, with elapsed and spinner",
			total:  5,
			events: []Event{start("Vm", "b", ms(100)), start("Vm", "a", ms(100)), start("Vpc", "z", 0)},
			now:    at(ms(1500)),
			spin:   2,
			want: frameOut{Live: []string{
				`⠹ create Vpc "z" 1.5s`,
				`⠹ create Vm "a" 1.4s`,
				`⠹ create Vm "b" 1.4s`,
				"Applying: 0/5 done, 3 running",
			}},
		},
		{
			name:  "running with one name and type sorted by the action's name",
			total: 2,
			events: []Event{
				{Kind: Started, Action: plan.Update, Type: "Vm", Name: "a", Time: at(0)},
				{Kind: Started, Action: plan.Import, Type: "Vm", Name: "a", Time: at(0)},
			},
			now: at(ms(100)),
			want: frameOut{Live: []string{
				`⠋ import Vm "a" 100ms`,
				`⠋ update Vm "a" 100ms`,
				"Applying: 0/2 done, 2 running",
			}},
		},
		{
			name:  "finished become permanent lines in time order and leave the live region",
			total: 4,
			events: []Event{
				start("Vm", "a", 0), start("Vm", "b", 0), start("Vm", "c", 0), start("Vm", "d", 0),
				{Kind: Failed, Action: plan.Create, Type: "Vm", Name: "b", Time: at(ms(900)), Elapsed: ms(900), Err: errors.New("boom")},
				{Kind: Done, Action: plan.Create, Type: "Vm", Name: "a", Time: at(ms(500)), Elapsed: ms(500), ID: "i-1"},
				{Kind: Skipped, Action: plan.Create, Type: "Vm", Name: "c", Time: at(ms(900)), Err: errors.New(`dependency "b" failed`)},
			},
			now:  at(ms(2000)),
			spin: 10,
			want: frameOut{
				Perm: []string{
					`✓ create Vm "a": done in 500ms (id i-1)`,
					`✗ create Vm "b": failed after 900ms: boom`,
					`⊘ create Vm "c": skipped (dependency "b" failed)`,
				},
				Live: []string{`⠋ create Vm "d" 2.0s`, "Applying: 1/4 done, 1 running, 1 failed, 1 skipped"},
			},
		},
		{
			name: "finished at the same time keep arrival order",
			events: []Event{
				{Kind: Failed, Action: plan.Create, Type: "Vm", Name: "z", Time: at(ms(7)), Elapsed: ms(7)},
				{Kind: Skipped, Action: plan.Create, Type: "Vm", Name: "a", Time: at(ms(7))},
			},
			now: at(ms(7)),
			want: frameOut{
				Perm: []string{`✗ create Vm "z": failed after 7ms`, `⊘ create Vm "a": skipped`},
				Live: []string{"Applying: 0 done, 0 running, 1 failed, 1 skipped"},
			},
		},
		{
			name: "colour only on symbols",
			events: []Event{
				start("Vm", "a", 0), start("Vm", "r", 0),
				{Kind: Retrying, Action: plan.Create, Type: "Vm", Name: "r", Time: at(ms(10)), Attempt: 2, Err: errors.New("throttled")},
				{Kind: Done, Action: plan.Create, Type: "Vm", Name: "d", Time: at(ms(10)), Elapsed: ms(10)},
				{Kind: Failed, Action: plan.Create, Type: "Vm", Name: "f", Time: at(ms(11))},
				{Kind: Skipped, Action: plan.Create, Type: "Vm", Name: "s", Time: at(ms(12))},
			},
			now: at(ms(20)),
			st:  style{color: true},
			want: frameOut{
				Perm: []string{
					"\x1b[32m✓\x1b[0m create Vm \"d\": done in 10ms",
					"\x1b[31m✗\x1b[0m create Vm \"f\": failed after 0ms",
					"\x1b[33m⊘\x1b[0m create Vm \"s\": skipped",
				},
				Live: []string{
					`⠋ create Vm "a" 20ms`,
					"\x1b[33m⠋\x1b[0m create Vm \"r\" 20ms (retrying after attempt 2: throttled)",
					"Applying: 1 done, 2 running, 1 failed, 1 skipped",
				},
			},
		},
		{
			name:   "retrying without a start counts as running",
			events: []Event{{Kind: Retrying, Action: plan.Update, Type: "Vm", Name: "r", Time: at(0), Attempt: 1}},
			now:    at(ms(300)),
			want:   frameOut{Live: []string{`⠋ update Vm "r" 300ms (retrying after attempt 1)`, "Applying: 0 done, 1 running"}},
		},
		{
			name:   "width truncates every line below the terminal width",
			events: []Event{start("LoadBalancer", "frontend", 0), {Kind: Done, Action: plan.Create, Type: "Vm", Name: "abcdefgh", Time: at(0), Elapsed: ms(5)}},
			now:    at(0),
			st:     style{width: 21},
			want: frameOut{
				Perm: []string{`✓ create Vm "abcdef…`},
				Live: []string{`⠋ create LoadBalanc…`, "Applying: 1 done, 1…"},
			},
		},
		{
			// Wide characters take two columns: a line clipped by runes
			// would wrap, and the redraw would erase the wrong rows.
			name:   "width counts terminal columns, not runes",
			events: []Event{{Kind: Done, Action: plan.Create, Type: "Vm", Name: "データベース", Time: at(0), Elapsed: ms(5)}},
			now:    at(0),
			st:     style{width: 21},
			want:   frameOut{Perm: []string{`✓ create Vm "データ…`}, Live: []string{"Applying: 1 done, 0…"}},
		},
		{
			name:   "maxLive caps running lines and summarises the rest",
			events: []Event{start("Vm", "a", 0), start("Vm", "b", ms(1)), start("Vm", "c", ms(2)), start("Vm", "d", ms(3))},
			now:    at(ms(3)),
			st:     style{maxLive: 2},
			want: frameOut{Live: []string{
				`⠋ create Vm "a" 3ms`, `⠋ create Vm "b" 2ms`, "  and 2 more running", "Applying: 0 done, 4 running",
			}},
		},
		{
			name:   "final frame marks unfinished changes and says Finished",
			total:  2,
			events: []Event{start("Vm", "a", 0), {Kind: Done, Action: plan.Create, Type: "Vm", Name: "b", Time: at(0), Elapsed: ms(5)}},
			now:    at(ms(40)),
			final:  true,
			want: frameOut{
				Perm: []string{`✓ create Vm "b": done in 5ms`},
				Live: []string{`… create Vm "a" 40ms`, "Finished: 1/2 done, 1 running"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBoard(tt.total)
			for _, e := range tt.events {
				b.add(e, tt.now)
			}
			perm, live := b.frame(tt.now, tt.spin, tt.st, tt.final)
			if diff := cmp.Diff(tt.want, frameOut{perm, live}); diff != "" {
				t.Errorf("frame (-want +got):\n%s", diff)
			}
			// Finished changes are printed once.
			perm, _ = b.frame(tt.now, tt.spin, tt.st, tt.final)
			if len(perm) != 0 {
				t.Errorf("second frame reprinted permanent lines: %q", perm)
			}
		})
	}
}

func TestBoardStampsEventsWithoutTime(t *testing.T) {
	b := newBoard(0)
	b.add(Event{Kind: Started, Action: plan.Create, Type: "Vm", Name: "a"}, at(time.Second))
	_, live := b.frame(at(3*time.Second), 0, style{}, false)
	if diff := cmp.Diff(`⠋ create Vm "a" 2.0s`, live[0]); diff != "" {
		t.Errorf("running line (-want +got):\n%s", diff)
	}
}

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestTerminalCloseDrawsFinalFrameOnce(t *testing.T) {
	var out lockedBuffer
	clock := &fakeClock{t: at(0)}
	// An interval far longer than the test: only Close draws.
	term := NewTerminal(&out, Options{NoColor: true, Now: clock.Now, Interval: time.Hour, Total: 2})
	term.Event(Event{Kind: Started, Action: plan.Create, Type: "Vm", Name: "a", Time: at(0)})
	term.Event(Event{Kind: Done, Action: plan.Create, Type: "Vm", Name: "a", Time: at(ms(20)), Elapsed: ms(20)})
	term.Close()
	term.Close()
	term.Event(Event{Kind: Started, Action: plan.Create, Type: "Vm", Name: "late"})
	want := "✓ create Vm \"a\": done in 20ms\nFinished: 1/2 done, 0 running\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	select {
	case <-term.done:
	default:
		t.Error("redraw goroutine still running after Close")
	}
}

func TestNewPicksView(t *testing.T) {
	var buf bytes.Buffer
	v := New(&buf, false, false)
	if _, ok := v.(*Plain); !ok {
		t.Errorf("New(non-terminal) = %T, want *Plain", v)
	}
	v.Close()
	v = New(&buf, true, true)
	term, ok := v.(*Terminal)
	if !ok {
		t.Fatalf("New(terminal) = %T, want *Terminal", v)
	}
	if term.st.color {
		t.Error("New(terminal, noColor) draws colour")
	}
	v.Close()
}
