package local

import (
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

// This host's /proc as the tests fake it: this process is pid 100 of user
// 1000, started at tick 5000 of boot "boot-1", in pid namespace "ns-1".
const (
	selfPID   = 100
	holderPID = 200
)

var self = statemgr.Process{Boot: "boot-1", PIDNS: "pid:[4026531836]", UID: 1000, Start: 5000}

// statLine is a /proc/PID/stat line; the command name holds a space and a
// parenthesis, as one may.
func statLine(pid int, state byte, start uint64) []byte {
	return fmt.Appendf(nil, "%d (kyku (x) y) %c 1 %d 0 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 4 0 %d 1256636416 549 18446744073709551615\n", pid, state, pid, start)
}

// fakeProc is /proc with this process, and with the holder's pid as
// holder says ("" none; "S" running; "Z" a zombie), started at start.
func fakeProc(holder string, start uint64) fstest.MapFS {
	m := fstest.MapFS{
		"self/stat":                 {Data: statLine(selfPID, 'R', self.Start)},
		"self/status":               {Data: []byte("Name:\tkyku\nUmask:\t0022\nUid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\n")},
		"self/ns/pid":               {Data: []byte(self.PIDNS), Mode: fs.ModeSymlink},
		"sys/kernel/random/boot_id": {Data: []byte(self.Boot + "\n")},
	}
	if holder != "" {
		m[fmt.Sprint(holderPID)+"/stat"] = &fstest.MapFile{Data: statLine(holderPID, holder[0], start)}
	}
	return m
}

// takeovers records what a LockTakenOver hook was told.
type takeovers struct {
	mu  sync.Mutex
	why []statemgr.TakeoverReason
	ids []string
}

func (r *takeovers) hook(h statemgr.LockInfo, why statemgr.TakeoverReason) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.why, r.ids = append(r.why, why), append(r.ids, h.ID)
}

// TestLockOfAGoneProcessIsTakenOverAtOnce: a lock whose heartbeat is
// fresh is taken over at once when its process is known to be gone from
// this host — its pid free, a zombie, or another process's (pid reuse) —
// and the hook is told; it is waited for when the process runs, or when
// the lock cannot be judged from here (another boot, pid namespace or
// user, no identity recorded, no /proc).
func TestLockOfAGoneProcessIsTakenOverAtOnce(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		name      string
		proc      fstest.MapFS
		recorded  statemgr.Process
		wantTaken bool
	}{
		{"its pid is free", fakeProc("", 0), statemgr.Process{Boot: "boot-1", PIDNS: self.PIDNS, UID: 1000, Start: 7000}, true},
		{"its pid is another process's", fakeProc("S", 9999), statemgr.Process{Boot: "boot-1", PIDNS: self.PIDNS, UID: 1000, Start: 7000}, true},
		{"it is a zombie", fakeProc("Z", 7000), statemgr.Process{Boot: "boot-1", PIDNS: self.PIDNS, UID: 1000, Start: 7000}, true},
		{"it runs", fakeProc("S", 7000), statemgr.Process{Boot: "boot-1", PIDNS: self.PIDNS, UID: 1000, Start: 7000}, false},
		{"it ran before a reboot", fakeProc("", 0), statemgr.Process{Boot: "boot-0", PIDNS: self.PIDNS, UID: 1000, Start: 7000}, false},
		{"it runs in another pid namespace", fakeProc("", 0), statemgr.Process{Boot: "boot-1", PIDNS: "pid:[4026532000]", UID: 1000, Start: 7000}, false},
		{"it runs as another user (whose processes /proc may hide)", fakeProc("", 0), statemgr.Process{Boot: "boot-1", PIDNS: self.PIDNS, UID: 1001, Start: 7000}, false},
		{"it recorded no identity (another OS, an older kyku)", fakeProc("", 0), statemgr.Process{}, false},
		{"there is no /proc here", fstest.MapFS{}, statemgr.Process{Boot: "boot-1", PIDNS: self.PIDNS, UID: 1000, Start: 7000}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			dir := t.TempDir()
			// A fresh heartbeat: only the process check can let us in.
			writeLockFile(t, dir, statemgr.LockInfo{ID: "held", Operation: "apply", Who: "alice@box", Host: "box", PID: holderPID,
				Created: clock.Now(), Heartbeat: clock.Now(), Process: tc.recorded})
			opts := fastOptions()
			opts.Now, opts.Proc, opts.PID, opts.LockTimeout = clock.Now, tc.proc, selfPID, 50*time.Millisecond
			var told takeovers
			l, err := New(dir, "prod", opts).Lock(statemgr.WithLockTakenOver(ctx, told.hook), statemgrtest.NewLockInfo("plan"))
			if !tc.wantTaken {
				var le *statemgr.LockedError
				if !errors.As(err, &le) || le.Holder.ID != "held" {
					t.Fatalf("Lock = %v; want a LockedError naming the holder", err)
				}
				if len(told.why) != 0 {
					t.Errorf("the hook was told of a takeover: %v", told.why)
				}
				return
			}
			if err != nil {
				t.Fatalf("the lock of a gone process was not taken over: %v", err)
			}
			defer l.Unlock(ctx)
			if diff := cmp.Diff([]statemgr.TakeoverReason{statemgr.ProcessGone}, told.why); diff != "" || told.ids[0] != "held" {
				t.Errorf("the hook was told %v about %v (-want +got):\n%s", told.why, told.ids, diff)
			}
			if got := lockOnDisk(t, dir); got.ID != l.Info().ID {
				t.Errorf("lock on disk is %s, want ours %s", got.ID, l.Info().ID)
			}
		})
	}
}

// TestLockRecordsItsProcess: the lock carries this process's identity
// when it names this process's pid, and none when it names another (a
// front door's own pid, a test's): only what /proc said of the process
// named is ever judged.
func TestLockRecordsItsProcess(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		pid  int
		want statemgr.Process
	}{
		{selfPID, self},
		{4242, statemgr.Process{}},
	} {
		t.Run(fmt.Sprint(tc.pid), func(t *testing.T) {
			dir := t.TempDir()
			opts := fastOptions()
			opts.Proc, opts.PID = fakeProc("", 0), tc.pid
			l, err := New(dir, "prod", opts).Lock(ctx, statemgrtest.NewLockInfo("plan"))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Unlock(ctx)
			if diff := cmp.Diff(tc.want, lockOnDisk(t, dir).Process); diff != "" {
				t.Errorf("recorded process (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		line       string
		pid        int
		state      byte
		start      uint64
		wantErrors bool
	}{
		{string(statLine(42, 'S', 123456)), 42, 'S', 123456, false},
		{"7 (a) b) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 99 20\n", 7, 'R', 99, false},
		{"7 (a) R 1 2\n", 0, 0, 0, true},
		{"seven (a) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 99 20\n", 0, 0, 0, true},
		{"", 0, 0, 0, true},
	} {
		pid, state, start, err := parseStat([]byte(tc.line))
		if (err != nil) != tc.wantErrors || pid != tc.pid || state != tc.state || start != tc.start {
			t.Errorf("parseStat(%q) = %d %q %d %v", tc.line, pid, state, start, err)
		}
	}
}
