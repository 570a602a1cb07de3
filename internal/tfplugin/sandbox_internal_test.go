package tfplugin

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxedSocketMustBeItsOwn: the unix socket a sandboxed provider's
// handshake names is taken only in its own directory and only as a
// socket: not a path elsewhere on the host, not a link to another socket.
func TestSandboxedSocketMustBeItsOwn(t *testing.T) {
	j := &jail{dir: t.TempDir()}
	l, err := net.Listen("unix", filepath.Join(j.dir, "plugin1"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	other := filepath.Join(t.TempDir(), "host.sock")
	ol, err := net.Listen("unix", other)
	if err != nil {
		t.Fatal(err)
	}
	defer ol.Close()
	if err := os.Symlink(other, filepath.Join(j.dir, "plugin2")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ addr, want string }{
		{"/tmp/plugin1", filepath.Join(j.dir, "plugin1")},
		{"/tmp/plugin2", "is not a socket"},
		{other, "outside its own directory"},
		{"/tmp/../etc/x", "outside its own directory"},
		{"/tmp/none", "is not a socket"},
	} {
		got, err := j.socketPath(tc.addr)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: %s, want %q", tc.addr, got, tc.want)
		}
	}
}
