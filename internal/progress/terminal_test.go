package progress

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kyku/action/internal/plan"
)

// nextFrame lets synctest's clock run until term has drawn another frame.
func nextFrame(t *testing.T, term *Terminal) {
	t.Helper()
	n := frameCount(term)
	for range 100 {
		time.Sleep(time.Millisecond)
		synctest.Wait() // the ticker's redraw, due now, has been written
		if frameCount(term) > n {
			return
		}
	}
	t.Fatalf("terminal drew no frame in 100ms after frame %d", n)
}

func frameCount(term *Terminal) int {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.frames
}

// runOnPty drives the scripted apply through a Terminal writing to a real
// pty, with notices[i] given to the view after stage i's events, and
// returns everything the pty's master side read. The Terminal runs in a
// synctest bubble, so its ticker's redraws come on a simulated clock; the
// pty's master is read outside it, as real I/O.
func runOnPty(t *testing.T, noColor bool, notices map[int]string) []byte {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty available: %v", err)
	}
	defer ptmx.Close()
	var out lockedBuffer
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		_, _ = io.Copy(&out, ptmx)
	}()

	synctest.Test(t, func(t *testing.T) {
		clock := &fakeClock{t: at(0)}
		term := NewTerminal(tty, Options{NoColor: noColor, Now: clock.Now, Interval: 2 * time.Millisecond, Total: 6})
		for i, s := range scriptedApply() {
			clock.Set(s.now)
			for _, e := range s.events {
				term.Event(e)
			}
			if n, ok := notices[i]; ok {
				term.Notice(n)
			}
			// One more frame, drawn after the stage's events, so every
			// stage is seen and the spinner moves between stages.
			nextFrame(t, term)
		}
		term.Close()
		select {
		case <-term.done:
		default:
			t.Fatal("redraw goroutine still running after Close")
		}
		framesAtClose := frameCount(term)
		time.Sleep(10 * time.Millisecond) // five ticks, were the ticker running
		if got := frameCount(term); got != framesAtClose {
			t.Errorf("terminal drew %d frames after Close", got-framesAtClose)
		}
	})

	// Read until the final frame (ending in the pty's \r\n) has arrived.
	deadline := time.Now().Add(5 * time.Second)
	for s := out.String(); !strings.Contains(s, "Finished:") || !strings.HasSuffix(s, "\r\n"); s = out.String() {
		if time.Now().After(deadline) {
			t.Fatalf("final frame never arrived; got %q", s)
		}
		time.Sleep(time.Millisecond)
	}
	tty.Close()
	ptmx.Close()
	<-readDone
	return []byte(out.String())
}

func TestTerminalOnPty(t *testing.T) {
	wantScreen := []string{
		`✓ create Vpc "main-vpc": done in 1.2s (id 1001)`,
		`✓ create Subnet "subnet-a": done in 350ms (id subnet-1002)`,
		`✓ update SecurityGroup "web-sg": done in 2.1s (id sg-1003)`,
		`✗ create Vm "web": failed after 3.0s: quota exceeded: vcpu limit 8`,
		`⊘ create LoadBalancer "lb": skipped (dependency "web" failed)`,
		`✓ destroy Bucket "old-logs": done in 1m04s`,
		"Finished: 4/6 done, 0 running, 1 failed, 1 skipped",
		"", // Close leaves the cursor on a fresh line
	}
	for _, noColor := range []bool{false, true} {
		name := "color"
		if noColor {
			name = "no color"
		}
		t.Run(name, func(t *testing.T) {
			raw := runOnPty(t, noColor, nil)
			if noColor && bytes.Contains(raw, []byte("\x1b[3")) {
				t.Errorf("NoColor output has colour sequences")
			}
			if !noColor && !bytes.Contains(raw, []byte(green+symDone+reset)) {
				t.Errorf("colour output has no green check mark")
			}
			checkFrames(t, tokenize(t, raw), wantScreen)
		})
	}
}

// TestTerminalNoticeStaysOnPty: a notice given while the live region is on
// screen (the CLI's "interrupted: … press Ctrl-C again" line) is printed
// at once above it, after the changes finished so far, and is still on the
// final screen: no redraw erases it.
func TestTerminalNoticeStaysOnPty(t *testing.T) {
	const notice = "kyku: interrupted: finishing running changes and saving state (press Ctrl-C again to exit now)"
	wantScreen := []string{
		`✓ create Vpc "main-vpc": done in 1.2s (id 1001)`,
		`✓ create Subnet "subnet-a": done in 350ms (id subnet-1002)`,
		notice,
		`✓ update SecurityGroup "web-sg": done in 2.1s (id sg-1003)`,
		`✗ create Vm "web": failed after 3.0s: quota exceeded: vcpu limit 8`,
		`⊘ create LoadBalancer "lb": skipped (dependency "web" failed)`,
		`✓ destroy Bucket "old-logs": done in 1m04s`,
		"Finished: 4/6 done, 0 running, 1 failed, 1 skipped",
		"",
	}
	raw := runOnPty(t, true, map[int]string{2: notice})
	if n := bytes.Count(raw, []byte(notice)); n != 1 {
		t.Errorf("the notice was written %d times, want once", n)
	}
	checkFrames(t, tokenize(t, raw), wantScreen)
}

// checkFrames replays the stream on a screen and asserts that every redraw
// erased exactly the live region the previous frame drew.
func checkFrames(t *testing.T, toks []token, wantScreen []string) {
	t.Helper()
	frames := splitFrames(t, toks)
	if len(frames) < 6 {
		t.Fatalf("only %d frames drawn", len(frames))
	}
	var scr screen
	var perm []string
	spins := map[string]bool{}
	sawRetry := false
	prevLive := 0
	for i, f := range frames {
		if f.erased != (i > 0) {
			t.Fatalf("frame %d: erased=%v; only the first frame draws without erasing", i, f.erased)
		}
		if i > 0 && f.ups != prevLive-1 {
			t.Errorf("frame %d: %d cursor ups, previous frame drew %d live lines", i, f.ups, prevLive)
		}
		for _, tok := range f.erase {
			scr.apply(tok)
		}
		// After the erase the screen holds exactly the permanent lines, and
		// the cursor is at the start of the row after them.
		if scr.col != 0 || scr.row != len(perm) {
			t.Fatalf("frame %d: after erase cursor at row %d col %d, want row %d col 0", i, scr.row, scr.col, len(perm))
		}
		if diff := cmp.Diff(perm, trimEmptyTail(scr.lines()), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("frame %d: screen after erase (-want +got):\n%s", i, diff)
		}
		if len(f.content) == 0 || f.content[0].kind == tokLF || f.content[0].kind == tokCR {
			t.Fatalf("frame %d starts with a newline or is empty", i)
		}
		last := i == len(frames)-1
		n := len(f.content)
		endsNL := f.content[n-1].kind == tokLF
		if !last && endsNL {
			t.Errorf("frame %d ends with a newline", i)
		}
		if last && (!endsNL || n < 3 || f.content[n-3].kind == tokLF) {
			t.Errorf("final frame must end with exactly one newline")
		}
		for _, tok := range f.content {
			scr.apply(tok)
		}
		lines := textLines(f.content)
		if last {
			lines = lines[:len(lines)-1] // the empty line after the final newline
		}
		prevLive = 0
		for _, l := range lines {
			switch {
			case isPermanent(l):
				if prevLive > 0 {
					t.Errorf("frame %d: permanent line %q below the live region", i, l)
				}
				perm = append(perm, l)
				continue
			case strings.Contains(l, "(retrying after attempt 1: throttled: rate exceeded)"):
				sawRetry = true
			}
			if r, _, ok := strings.Cut(l, " "); ok && strings.Contains(strings.Join(spinner, ""), r) {
				spins[r] = true
			}
			prevLive++
		}
		if prevLive == 0 || !strings.HasPrefix(lines[len(lines)-1], "Applying:") && !last {
			t.Errorf("frame %d does not end with the status line: %q", i, lines)
		}
	}
	if diff := cmp.Diff(wantScreen, scr.lines()); diff != "" {
		t.Errorf("final screen (-want +got):\n%s", diff)
	}
	if scr.row != len(wantScreen)-1 || scr.col != 0 {
		t.Errorf("cursor at row %d col %d, want start of the last row %d", scr.row, scr.col, len(wantScreen)-1)
	}
	if len(spins) < 2 {
		t.Errorf("spinner never advanced: saw %v", spins)
	}
	if !sawRetry {
		t.Error("no frame showed the retrying change")
	}
}

func trimEmptyTail(lines []string) []string {
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func TestTerminalConcurrentEvents(t *testing.T) {
	var out lockedBuffer
	term := NewTerminal(&out, Options{NoColor: true, Interval: time.Millisecond, Total: 200})
	done := make(chan struct{})
	for g := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 25 {
				e := Event{Action: plan.Create, Type: "Vm", Name: string(rune('a'+g)) + strings.Repeat("x", i)}
				e.Kind = Started
				term.Event(e)
				e.Kind = Done
				if i%5 == 0 {
					e.Kind, e.Err = Failed, errors.New("boom")
				}
				term.Event(e)
			}
		}()
	}
	for range 8 {
		<-done
	}
	term.Close()
	got := out.String()
	if !strings.HasSuffix(got, "Finished: 160/200 done, 0 running, 40 failed\n") {
		t.Errorf("final status wrong; output ends %q", got[max(0, len(got)-80):])
	}
	if n := strings.Count(got, "✓ ") + strings.Count(got, "✗ "); n != 200 {
		t.Errorf("%d permanent lines, want 200 (each finished change printed once)", n)
	}
}

func TestNewViewSizesFromTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty available: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 10, Cols: 40}); err != nil {
		t.Fatalf("set pty size: %v", err)
	}
	if !IsTerminal(tty) {
		t.Error("IsTerminal(pty) = false")
	}
	regular, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer regular.Close()
	if IsTerminal(regular) {
		t.Error("IsTerminal(regular file) = true")
	}

	v := NewView(tty, true, Options{NoColor: true, Interval: time.Hour})
	term, ok := v.(*Terminal)
	if !ok {
		t.Fatalf("NewView(terminal) = %T, want *Terminal", v)
	}
	// Drain the master so Close's write never blocks.
	go func() { _, _ = io.Copy(io.Discard, ptmx) }()
	defer v.Close()
	if diff := cmp.Diff(style{width: 40, maxLive: 7}, term.st, cmp.AllowUnexported(style{})); diff != "" {
		t.Errorf("style from a 40x10 terminal (-want +got):\n%s", diff)
	}
}
