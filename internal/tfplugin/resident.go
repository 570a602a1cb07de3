package tfplugin

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// Resident is the provider process's resident memory in bytes, read from
// /proc (Linux); ok is false where there is no /proc or once the process
// has ended.
func (p *Provider) Resident() (n int64, ok bool) {
	if p.Exited() {
		return 0, false
	}
	return residentOf(p.Pid())
}

// residentOf reads the second field of /proc/PID/statm: resident pages.
func residentOf(pid int) (int64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0, false
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}
