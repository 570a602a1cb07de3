package main

import (
	"context"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"
)

// TestInterruptNoticeStaysOnScreen: Ctrl-C (SIGINT) during an apply on a
// terminal prints "interrupted: … press Ctrl-C again" where the live
// progress display cannot draw over it: replayed on a screen, the notice is
// still there when kyku has exited, once, above the interruption summary.
func TestInterruptNoticeStaysOnScreen(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty available: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 200}); err != nil {
		t.Fatal(err)
	}
	p := newProject(t, layered(40))
	p.env = append(p.env, "KYKU_SIM_LATENCY=100ms-200ms")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := p.cmd(ctx, "apply", "--auto-approve", "--parallelism", "2")
	c.Stdout, c.Stderr = tty, tty
	var out syncBuffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		_, _ = io.Copy(&out, ptmx)
	}()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the child has its copy; the master reads EOF once it exits
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "Applying:") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_ = c.Wait()
	if code := c.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("exit %d after Ctrl-C, want 1\n%s", code, tail(out.String()))
	}
	select {
	case <-read:
	case <-time.After(10 * time.Second):
		t.Fatal("the pty never reached EOF")
	}
	screen := replay(t, out.String())
	const notice = "kyku: interrupted: finishing running changes and saving state (press Ctrl-C again to exit now)"
	at, summary := -1, -1
	for i, line := range screen {
		switch {
		case line == notice && at < 0:
			at = i
		case line == notice:
			t.Errorf("the notice is on the screen twice (rows %d and %d)", at, i)
		case strings.HasPrefix(line, "Interrupted: changes that had started finished"):
			summary = i
		}
	}
	if at < 0 || summary < at {
		t.Errorf("final screen: notice at row %d, summary at row %d; want the notice on screen above the summary:\n%s", at, summary, strings.Join(screen, "\n"))
	}
}

// replay draws terminal output on a screen with enough rows (no wrapping
// or scrolling needed at this width) and returns its lines: text, \r, \n,
// the progress display's cursor up and clear line, and colour (ignored).
func replay(t *testing.T, s string) []string {
	t.Helper()
	rows := [][]rune{nil}
	row, col := 0, 0
	for len(s) > 0 {
		switch {
		case s[0] == '\r':
			col, s = 0, s[1:]
		case s[0] == '\n':
			row, s = row+1, s[1:]
			if row == len(rows) {
				rows = append(rows, nil)
			}
		case strings.HasPrefix(s, "\x1b[1A"):
			row, s = max(row-1, 0), s[4:]
		case strings.HasPrefix(s, "\x1b[2K"):
			rows[row], s = nil, s[4:]
		case s[0] == '\x1b':
			end := strings.IndexByte(s, 'm')
			if end < 0 || !strings.HasPrefix(s, "\x1b[") || strings.Trim(s[2:end], "0123456789;") != "" {
				t.Fatalf("unexpected escape sequence at %q", s[:min(len(s), 10)])
			}
			s = s[end+1:]
		default:
			r, n := utf8.DecodeRuneInString(s)
			for len(rows[row]) <= col {
				rows[row] = append(rows[row], ' ')
			}
			rows[row][col] = r
			col, s = col+1, s[n:]
		}
	}
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = strings.TrimRight(string(r), " ")
	}
	return lines
}
