package tfplugin_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// heldSyncKeeperArg makes the test binary a journal keeper whose log's
// data syncs wait for the test (syncGate, in the directory after it).
const heldSyncKeeperArg = "__kyku-test-held-sync-keeper"

// syncGate holds each data sync of the keeper's log: it says "N COVERED"
// on the FIFO dir/started (N counting the syncs from 1, COVERED the
// log's length as the sync starts), then waits until the test has opened
// and closed the FIFO dir/release-N, and syncs.
func syncGate(dir string) func(int64, func() error) error {
	var (
		mu      sync.Mutex
		n       int
		started *os.File
	)
	return func(covered int64, sync func() error) error {
		mu.Lock()
		n++
		release := filepath.Join(dir, fmt.Sprintf("release-%d", n))
		err := syscall.Mkfifo(release, 0o600)
		if err == nil && started == nil {
			started, err = os.OpenFile(filepath.Join(dir, "started"), os.O_WRONLY, 0)
		}
		if err == nil {
			_, err = fmt.Fprintf(started, "%d %d\n", n, covered)
		}
		mu.Unlock()
		if err != nil {
			return err
		}
		f, err := os.Open(release) // until the test opens it to write
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, f)
		f.Close()
		return sync()
	}
}

// TestKeeperRepliesAfterItsRoundsSync: through a keeper whose log's data
// syncs the test holds, a create's reply (its ApplyResourceChange
// returning) comes only once a sync that started after its answer was
// logged has completed: none while the sync of its round is held, and
// the creates answered while a sync is in flight wait for a sync of
// their own, whichever completes first. Each create checks, as it
// returns, that a sync released by then covered its record.
func TestKeeperRepliesAfterItsRoundsSync(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	gate := t.TempDir()
	startedPath := filepath.Join(gate, "started")
	if err := syscall.Mkfifo(startedPath, 0o600); err != nil {
		t.Fatal(err)
	}
	type syncStart struct {
		n, covered int64
	}
	starts := make(chan syncStart, 16)
	go func() {
		f, err := os.Open(startedPath) // until the keeper's first sync opens it
		if err != nil {
			return
		}
		defer f.Close()
		for sc := bufio.NewScanner(f); sc.Scan(); {
			var s syncStart
			if _, err := fmt.Sscanf(sc.Text(), "%d %d", &s.n, &s.covered); err == nil {
				starts <- s
			}
		}
	}()
	p, err := tfplugin.Start(t.Context(), tfplugin.Config{
		Name: "fwtest", Path: tfplugintest.Build(t, tfplugintest.Framework), Keeper: []string{os.Args[0], heldSyncKeeperArg, gate},
	})
	if err != nil {
		t.Fatal(err)
	}
	keeper := keeperPID(p.Pid())
	var creates sync.WaitGroup
	t.Cleanup(func() {
		// Whatever happened, the keeper goes (and its provider with it),
		// the creates return and the reader of the FIFO ends.
		_ = syscall.Kill(keeper, syscall.SIGKILL)
		p.Close()
		creates.Wait()
		if f, err := os.OpenFile(startedPath, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	configure(t, p, map[string]any{"dir": t.TempDir()})
	box := filepath.Join(t.TempDir(), "state.answers")
	if err := os.Mkdir(box, 0o700); err != nil {
		t.Fatal(err)
	}

	var (
		mu       sync.Mutex
		released []int64 // what the syncs released covered
		unsynced []string
	)
	release := func(s syncStart) {
		mu.Lock()
		released = append(released, s.covered)
		mu.Unlock()
		f, err := os.OpenFile(filepath.Join(gate, fmt.Sprintf("release-%d", s.n)), os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	nextStart := func(why string) syncStart {
		t.Helper()
		return tfplugin.Within(t, starts, 30*time.Second, why)
	}
	logged := func() map[string]int64 { // where each logged record ends
		logs, _ := filepath.Glob(filepath.Join(state.KeeperLogs(box), state.KeeperLogPattern))
		if len(logs) != 1 {
			return nil
		}
		return recordEnds(t, logs[0])
	}
	done := make(chan string, 3)
	create := func(name string) {
		addr := "fwtest_held." + name
		path := filepath.Join(box, state.AnswerName(addr))
		data, _ := state.EncodeAnswer(state.Answer{Address: addr, Type: "fwtest_held", Note: "n-" + name})
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		creates.Go(func() {
			_, err := heldCreateOf(p, addr, "0s", path)
			end, ok := logged()[addr]
			mu.Lock()
			switch {
			case err != nil:
				unsynced = append(unsynced, fmt.Sprintf("%s failed: %v", addr, err))
			case !ok:
				unsynced = append(unsynced, addr+" returned with no record logged")
			case !slices.ContainsFunc(released, func(covered int64) bool { return covered >= end }):
				unsynced = append(unsynced, fmt.Sprintf("%s (its record ends at %d; the syncs released had covered %v)", addr, end, released))
			}
			mu.Unlock()
			done <- name
		})
	}

	create("a")
	first := nextStart("the first create's answer started no sync of the log")
	// b and c are answered while a's sync is held: each waits for a sync
	// that starts once its record is written.
	create("b")
	create("c")
	var later []syncStart
	for {
		s := nextStart("answers logged while a sync was in flight started no sync after them: they rode on the one in flight")
		later = append(later, s)
		ends := logged()
		if eb, ok := ends["fwtest_held.b"]; ok && eb <= s.covered {
			if ec, ok := ends["fwtest_held.c"]; ok && ec <= s.covered {
				break
			}
		}
	}
	returned := 0 // creates taken from done
	select {
	case name := <-done:
		returned++
		t.Errorf("the create of %s returned while every sync was held", name)
	default:
	}
	release(first)
	if returned == 0 {
		returned++
		if name := <-done; name != "a" {
			t.Errorf("the create of %s returned when the sync before its answer was released", name)
		}
	}
	for _, s := range slices.Backward(later) {
		release(s)
	}
	for ; returned < 3; returned++ {
		<-done
	}
	mu.Lock()
	defer mu.Unlock()
	if len(unsynced) > 0 {
		t.Errorf("replies before a sync covering their answers completed: %q", unsynced)
	}
}

// recordEnds is where each record of the keeper's log at path ends, by
// its address.
func recordEnds(t *testing.T, path string) map[string]int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Error(err)
		return nil
	}
	ends := map[string]int64{}
	var end int64
	for _, a := range state.AnswerRecords(data) {
		enc, _ := state.EncodeAnswer(a)
		end += int64(len(state.AppendAnswerRecord(nil, enc)))
		ends[a.Address] = end
	}
	return ends
}
