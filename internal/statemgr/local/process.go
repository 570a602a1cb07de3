package local

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync"

	"github.com/kyku/action/internal/statemgr"
)

// procTable reads the host's process table (Linux /proc, Options.Proc) to
// tell whether the process that took a lock still runs. Where there is no
// /proc, nothing is recorded and every holder is waited for.
type procTable struct {
	fsys fs.FS

	once sync.Once
	self statemgr.Process
	pid  int // this process's pid, as /proc says
	err  error
}

// identity is this process's identity and pid, read once.
func (p *procTable) identity() (statemgr.Process, int, error) {
	p.once.Do(func() { p.self, p.pid, p.err = p.readSelf() })
	return p.self, p.pid, p.err
}

func (p *procTable) readSelf() (statemgr.Process, int, error) {
	stat, err := fs.ReadFile(p.fsys, "self/stat")
	if err != nil {
		return statemgr.Process{}, 0, fmt.Errorf("read own process: %w", err)
	}
	pid, _, start, err := parseStat(stat)
	if err != nil {
		return statemgr.Process{}, 0, err
	}
	boot, err := fs.ReadFile(p.fsys, "sys/kernel/random/boot_id")
	if err != nil {
		return statemgr.Process{}, 0, fmt.Errorf("read boot ID: %w", err)
	}
	ns, err := fs.ReadLink(p.fsys, "self/ns/pid")
	if err != nil {
		return statemgr.Process{}, 0, fmt.Errorf("read pid namespace: %w", err)
	}
	status, err := fs.ReadFile(p.fsys, "self/status")
	if err != nil {
		return statemgr.Process{}, 0, fmt.Errorf("read own process status: %w", err)
	}
	uid, err := parseUID(status)
	if err != nil {
		return statemgr.Process{}, 0, err
	}
	id := statemgr.Process{Boot: strings.TrimSpace(string(boot)), PIDNS: ns, UID: uid, Start: start}
	if id.Boot == "" || id.PIDNS == "" || start == 0 {
		return statemgr.Process{}, 0, errors.New("read own process: incomplete identity")
	}
	return id, pid, nil
}

// stamp records in info the identity of this process when info names it
// (its PID is ours); otherwise none: only what /proc said about the
// process named is ever judged.
func (p *procTable) stamp(info statemgr.LockInfo) statemgr.LockInfo {
	info.Process = statemgr.Process{}
	if id, pid, err := p.identity(); err == nil && pid == info.PID {
		info.Process = id
	}
	return info
}

// gone reports whether holder's process is known to no longer run: it
// recorded its identity, it ran on this kernel since this boot, in this
// pid namespace and as this user (another user's processes may be hidden
// from /proc), and its pid is now free, a zombie, or another process
// (another start time). Anything else, including a failed read, is not
// known: the lock is waited for.
func (p *procTable) gone(holder statemgr.LockInfo) bool {
	rec := holder.Process
	if rec.Start == 0 || rec.Boot == "" || rec.PIDNS == "" || holder.PID <= 0 {
		return false
	}
	self, _, err := p.identity()
	if err != nil || rec.Boot != self.Boot || rec.PIDNS != self.PIDNS || rec.UID != self.UID {
		return false
	}
	stat, err := fs.ReadFile(p.fsys, strconv.Itoa(holder.PID)+"/stat")
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	_, state, start, err := parseStat(stat)
	if err != nil {
		return false
	}
	return start != rec.Start || state == 'Z' || state == 'X'
}

// parseStat reads a /proc/PID/stat line: the pid (field 1), the state
// (field 3) and the start time (field 22). The command name (field 2)
// may hold spaces and parentheses: the fields after it follow its last ')'.
func parseStat(data []byte) (pid int, state byte, start uint64, err error) {
	open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 1 || end < open {
		return 0, 0, 0, fmt.Errorf("process stat %.40q: no command name", data)
	}
	if pid, err = strconv.Atoi(string(bytes.TrimSpace(data[:open]))); err != nil {
		return 0, 0, 0, fmt.Errorf("process stat %.40q: pid: %w", data, err)
	}
	rest := strings.Fields(string(data[end+1:]))
	// rest[0] is field 3; field 22 is rest[19].
	if len(rest) < 20 || len(rest[0]) != 1 {
		return 0, 0, 0, fmt.Errorf("process stat %.40q: too few fields", data)
	}
	if start, err = strconv.ParseUint(rest[19], 10, 64); err != nil {
		return 0, 0, 0, fmt.Errorf("process stat %.40q: start time: %w", data, err)
	}
	return pid, rest[0][0], start, nil
}

// parseUID reads the real user ID from a /proc/PID/status.
func parseUID(status []byte) (int, error) {
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				break
			}
			return strconv.Atoi(f[0])
		}
	}
	return 0, errors.New("process status: no Uid line")
}
