package deptest

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// executableKind names the executable format head (a file's first bytes)
// is in: ELF, Mach-O (thin or fat) or PE; "" for anything else.
func executableKind(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return "ELF"
	case len(head) >= 4:
		switch binary.BigEndian.Uint32(head) {
		case 0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe, 0xbebafeca:
			return "Mach-O"
		}
	}
	// PE: an MZ stub whose header offset (at 0x3c) points at "PE\0\0".
	if len(head) >= 0x40 && bytes.HasPrefix(head, []byte("MZ")) {
		if off := int(binary.LittleEndian.Uint32(head[0x3c:])); off+4 <= len(head) && bytes.Equal(head[off:off+4], []byte("PE\x00\x00")) {
			return "PE"
		}
	}
	return ""
}

func TestExecutableKind(t *testing.T) {
	pe := make([]byte, 0x100)
	copy(pe, "MZ")
	binary.LittleEndian.PutUint32(pe[0x3c:], 0x80)
	copy(pe[0x80:], "PE\x00\x00")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	this, err := os.ReadFile(self) // the test binary itself
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		head []byte
		want string
	}{
		{"the test binary", this[:4096], map[string]string{"linux": "ELF", "darwin": "Mach-O", "windows": "PE"}[runtime.GOOS]},
		{"ELF", []byte("\x7fELF\x02\x01\x01"), "ELF"},
		{"Mach-O 64", []byte{0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1}, "Mach-O"},
		{"Mach-O fat", []byte{0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2}, "Mach-O"},
		{"PE", pe, "PE"},
		{"MZ text", []byte("MZ is a postcode prefix, not a program" + strings.Repeat(" ", 64)), ""},
		{"Go", []byte("package main\n\nfunc main() {}\n"), ""},
		{"empty", nil, ""},
	} {
		if got := executableKind(tc.head); got != tc.want {
			t.Errorf("%s: executableKind = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestNoCompiledBinaryTracked: no file in the repository is a compiled
// program (a 27 MB cmd/bot/bot was once committed), and the places go
// build writes binaries to are git-ignored.
func TestNoCompiledBinaryTracked(t *testing.T) {
	root := repoRoot(t)
	head := make([]byte, 4096)
	for _, f := range trackedFiles(t, root) {
		fh, err := os.Open(filepath.Join(root, f))
		if err != nil {
			continue // listed but deleted in the work tree
		}
		n, _ := fh.Read(head)
		fh.Close()
		if kind := executableKind(head[:n]); kind != "" {
			t.Errorf("%s is a compiled %s binary: remove it (git rm --cached %s) and build it instead", f, kind, f)
		}
	}
	outputs := []string{"cmd/kyku/kyku", "cmd/kyku-engine/kyku-engine", "kyku-engine", "cmd/action/action", "cmd/bot/bot", "action", "bot", "kyku", "dist/kyku_linux_amd64", "bin/kyku"}
	check := exec.Command("git", append([]string{"check-ignore", "--no-index", "-v", "-n"}, outputs...)...)
	check.Dir = root
	got, _ := check.Output() // exits 1 when some path is not ignored
	for _, line := range strings.Split(strings.TrimSpace(string(got)), "\n") {
		if strings.HasPrefix(line, "::") {
			t.Errorf("the build output %s is not git-ignored", strings.TrimSpace(strings.TrimPrefix(line, "::")))
		}
	}
	if n := strings.Count(string(got), "\n"); n != len(outputs) {
		t.Errorf("git check-ignore answered for %d of %d paths:\n%s", n, len(outputs), got)
	}
}
