package tfplugin

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// userNamespaceFilter is a seccomp program (classic BPF, for bubblewrap's
// --seccomp) refusing what makes a user namespace: clone and unshare with
// CLONE_NEWUSER (EPERM), clone3, whose flags a filter cannot read (ENOSYS:
// the C library and Go fall back to clone), calls of another ABI (x32,
// 32-bit) (EPERM). Everything else is allowed. It is returned as the read
// end of a pipe holding it.
func userNamespaceFilter() (*os.File, error) {
	var arch uint32
	switch runtime.GOARCH {
	case "amd64":
		arch = unix.AUDIT_ARCH_X86_64
	case "arm64":
		arch = unix.AUDIT_ARCH_AARCH64
	default:
		return nil, fmt.Errorf("%w: no seccomp filter for %s", ErrNoSandbox, runtime.GOARCH)
	}
	const (
		ld     = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq    = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge    = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		jset   = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret    = unix.BPF_RET | unix.BPF_K
		allow  = unix.SECCOMP_RET_ALLOW
		eperm  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		enosys = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	)
	// seccomp_data: nr at 0, arch at 4, args[0] at 16 (its low half first:
	// both architectures are little-endian). Jumps count the instructions
	// skipped.
	prog := []unix.SockFilter{
		/* 0 */ {Code: ld, K: 4},
		/* 1 */ {Code: jeq, K: arch, Jt: 1},
		/* 2 */ {Code: ret, K: eperm},
		/* 3 */ {Code: ld, K: 0},
		/* 4 */ {Code: jge, K: 0x40000000, Jt: 7}, // x32's numbers
		/* 5 */ {Code: jeq, K: unix.SYS_CLONE3, Jt: 6},
		/* 6 */ {Code: jeq, K: unix.SYS_UNSHARE, Jt: 1},
		/* 7 */ {Code: jeq, K: unix.SYS_CLONE, Jf: 2},
		/* 8 */ {Code: ld, K: 16},
		/* 9 */ {Code: jset, K: unix.CLONE_NEWUSER, Jt: 1},
		/* 10 */ {Code: ret, K: allow},
		/* 11 */ {Code: ret, K: eperm},
		/* 12 */ {Code: ret, K: enosys},
	}
	var buf bytes.Buffer
	if err := binary.Write(&buf, binary.LittleEndian, prog); err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if _, err := w.Write(buf.Bytes()); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}
