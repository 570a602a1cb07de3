package tfplugin_test

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// keeperOfProtocolArg makes the test binary a journal keeper of another
// protocol than Kyku's (its argument after): "1", the keeper before
// versions, reads the setup, finds a field past the ones it knows, and
// exits saying so, answering nothing; another (2, 4) answers the setup
// with a reply of its version, then ends with Kyku's pipe.
const keeperOfProtocolArg = "__kyku-test-keeper-of-protocol"

func keeperOfProtocol(version string) int {
	var n [4]byte
	if _, err := io.ReadFull(os.Stdin, n[:]); err != nil {
		return 2
	}
	if _, err := io.CopyN(io.Discard, os.Stdin, int64(binary.BigEndian.Uint32(n[:]))); err != nil {
		return 2
	}
	if version == "1" {
		fmt.Fprintln(os.Stderr, "kyku journal keeper: read the setup: decode a keeper frame: a keeper frame has 1 bytes past its fields")
		return 1
	}
	v, err := strconv.Atoi(version)
	if err != nil || v < 2 || v > 127 {
		return 2
	}
	// ID, Handshake, PID, Code, Message, Err, NotSent, has a body, Body:
	// all empty; then Version (a uvarint of one byte).
	reply := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, byte(v)}
	os.Stdout.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(reply))), reply...))
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// TestKeeperOfAnotherProtocol: a journal keeper that does not speak
// Kyku's keeper protocol (a kyku-engine replaced while kyku ran, older
// or newer) is not spoken to: the provider runs as Kyku's own child, as
// without a keeper, said in one line (Config.Notice, or the log); a create the engine
// noted is marked asked before it is sent, so that a kill leaves its
// intent refused rather than closed as never asked.
func TestKeeperOfAnotherProtocol(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	path := tfplugintest.Build(t, tfplugintest.Framework)
	for _, tt := range []struct {
		version, want string
		notice        bool // told to Config.Notice, not the log
	}{
		{"1", "the journal keeper ended without answering in journal keeper protocol 3", false},
		{"2", "the journal keeper speaks journal keeper protocol 2, kyku 3", true},
		{"4", "the journal keeper speaks journal keeper protocol 4, kyku 3", true},
	} {
		t.Run("a keeper of protocol "+tt.version, func(t *testing.T) {
			logs, notices := &syncBuffer{}, &syncBuffer{}
			cfg := tfplugin.Config{Name: "fwtest", Path: path, Stderr: logs, Keeper: []string{os.Args[0], keeperOfProtocolArg, tt.version}}
			told := logs
			if tt.notice {
				cfg.Notice = func(line string) { fmt.Fprintln(notices, line) }
				told = notices
			}
			p, err := tfplugin.Start(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if parent := keeperPID(p.Pid()); parent != os.Getpid() {
				t.Errorf("the provider's parent is %d, want Kyku (%d)", parent, os.Getpid())
			}
			configure(t, p, map[string]any{"dir": t.TempDir()})
			answer := filepath.Join(t.TempDir(), state.AnswerName("fwtest_held.a"))
			if _, err := heldCreate(p, "0s", answer); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(answer)
			if err != nil {
				t.Fatal(err)
			}
			if a, err := state.DecodeAnswer(filepath.Base(answer), data); err != nil || !a.Asked || a.Response != nil {
				t.Errorf("the create's note: %+v, %v; want asked, no answer kept", a, err)
			}
			var lines []string
			for l := range strings.Lines(logs.String() + notices.String()) {
				if strings.Contains(l, "runs without its journal keeper") {
					lines = append(lines, l)
				}
			}
			if len(lines) != 1 || !strings.Contains(lines[0], tt.want) || !strings.HasPrefix(lines[0], "kyku: provider fwtest runs without its journal keeper") ||
				!strings.Contains(told.String(), lines[0]) {
				t.Errorf("lines on the keeper: %q, want one with %q (notice %v)", lines, tt.want, tt.notice)
			}
		})
	}
}

// TestCreateWithoutKeeperReportsCrash: a noted create made without the
// keeper (its keeper speaks another protocol) whose provider dies
// mid-create fails with the provider's crash, never as a create that
// returned nothing.
func TestCreateWithoutKeeperReportsCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	p, err := tfplugin.Start(t.Context(), tfplugin.Config{Name: "fwtest", Path: tfplugintest.Build(t, tfplugintest.Framework),
		Stderr: &syncBuffer{}, Notice: func(string) {}, Keeper: []string{os.Args[0], keeperOfProtocolArg, "2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	cloud := t.TempDir()
	configure(t, p, map[string]any{"dir": cloud})
	answer := filepath.Join(t.TempDir(), state.AnswerName("fwtest_held.a"))
	done := make(chan error, 1)
	go func() {
		_, err := heldCreate(p, "30s", answer)
		done <- err
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if objs, _ := filepath.Glob(filepath.Join(cloud, "held-*.json")); len(objs) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the create never reached the cloud")
		}
	}
	if err := syscall.Kill(p.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Error("a create whose provider was killed mid-create returned no error")
	}
}
