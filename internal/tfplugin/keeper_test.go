package tfplugin_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
	"github.com/kyku/action/internal/tfschema"
)

// TestMain lets the test binary be a journal keeper (as kyku-engine is,
// with tfplugin.KeeperArg) and the client of one that a test kills
// (keeperClientEnv).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == tfplugin.KeeperArg {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		os.Exit(tfplugin.ServeKeeper(os.Stdin, os.Stdout, os.Stderr))
	}
	if len(os.Args) > 2 && os.Args[1] == keeperOfProtocolArg {
		os.Exit(keeperOfProtocol(os.Args[2]))
	}
	if len(os.Args) > 2 && os.Args[1] == heldSyncKeeperArg {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		tfplugin.SetLogSync(syncGate(os.Args[2]))
		os.Exit(tfplugin.ServeKeeper(os.Stdin, os.Stdout, os.Stderr))
	}
	if len(os.Args) > 2 && os.Args[1] == noteMovedKeeperArg {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		tfplugin.SetNoteOpened(nil, moveNote(os.Args[2]))
		os.Exit(tfplugin.ServeKeeper(os.Stdin, os.Stdout, os.Stderr))
	}
	if os.Getenv(keeperClientEnv) != "" {
		os.Exit(keeperClient())
	}
	os.Exit(m.Run())
}

// keeperClientEnv makes the test binary a client of the provider
// KEEPER_PROVIDER through a keeper: it configures it on the cloud
// KEEPER_CLOUD, prints "pids KEEPER PROVIDER", and, unless KEEPER_HOLD is
// empty, creates fwtest_held.a holding its answer that long, the answer
// kept at KEEPER_ANSWER; then it waits to be killed.
const keeperClientEnv = "KYKU_TEST_KEEPER_CLIENT"

func keeperClient() int {
	ctx := context.Background()
	p, err := tfplugin.Start(ctx, tfplugin.Config{
		Name: "fwtest", Path: os.Getenv("KEEPER_PROVIDER"), Keeper: []string{os.Args[0], tfplugin.KeeperArg},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	s, err := p.Schema(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cfg, _ := tfschema.Config(s.Provider.Block, map[string]any{"dir": os.Getenv("KEEPER_CLOUD")})
	if ds, err := p.ConfigureProvider(ctx, cfg, "1.12.6"); err != nil || ds.HasErrors() {
		fmt.Fprintln(os.Stderr, err, ds.Err())
		return 1
	}
	fmt.Printf("pids %d %d\n", keeperPID(p.Pid()), p.Pid())
	if hold := os.Getenv("KEEPER_HOLD"); hold != "" {
		_, err := heldCreate(p, hold, os.Getenv("KEEPER_ANSWER"))
		fmt.Fprintln(os.Stderr, "the create returned", err)
		return 1
	}
	select {}
}

// heldCreate creates fwtest_held.a with hold through p, its answer kept at
// answerTo, noted there first as the engine notes it.
func heldCreate(p *tfplugin.Provider, hold, answerTo string) (tfplugin.ApplyResponse, error) {
	if answerTo != "" {
		if err := note(answerTo); err != nil {
			return tfplugin.ApplyResponse{}, err
		}
	}
	return heldCreateUnnoted(p, hold, answerTo)
}

// note writes the engine's note of fwtest_held.a's create at path.
func note(path string) error {
	data, err := state.EncodeAnswer(state.Answer{Address: "fwtest_held.a", Type: "fwtest_held"})
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// heldCreateUnnoted is heldCreate without the note.
func heldCreateUnnoted(p *tfplugin.Provider, hold, answerTo string) (tfplugin.ApplyResponse, error) {
	return heldCreateOf(p, "fwtest_held.a", hold, answerTo)
}

// heldCreateOf is heldCreateUnnoted of the address address.
func heldCreateOf(p *tfplugin.Provider, address, hold, answerTo string) (tfplugin.ApplyResponse, error) {
	return heldCreateNamed(p, address, hold, answerTo, "")
}

// heldCreateNamed is heldCreateOf whose call names the note's Note note
// (ApplyRequest.Note; "": read from the note).
func heldCreateNamed(p *tfplugin.Provider, address, hold, answerTo, note string) (tfplugin.ApplyResponse, error) {
	ctx := context.Background()
	s, err := p.Schema(ctx)
	if err != nil {
		return tfplugin.ApplyResponse{}, err
	}
	block := s.ResourceTypes["fwtest_held"].Block
	config, _ := tfschema.Config(block, map[string]any{"name": "held", "hold": hold})
	null := cty.NullVal(block.ImpliedType())
	plan, err := p.PlanResourceChange(ctx, tfplugin.PlanRequest{TypeName: "fwtest_held", PriorState: null, Config: config,
		ProposedNewState: tfschema.ProposedNew(block, null, config)})
	if err != nil {
		return tfplugin.ApplyResponse{}, err
	}
	return p.ApplyResourceChange(ctx, tfplugin.ApplyRequest{TypeName: "fwtest_held", PriorState: null, PlannedState: plan.PlannedState,
		Config: config, AnswerTo: answerTo, Address: address, Note: note})
}

// keeperPID is the parent of the provider process pid: its keeper.
func keeperPID(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// alive reports whether process pid runs (a zombie does not).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return f[0] != "Z" && f[0] != "X"
}

// waitGone waits up to d for pid to end.
func waitGone(pid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !alive(pid) {
			return true
		}
	}
	return !alive(pid)
}

// TestKeeperKeepsAnswerOfKilledClient: a client that talks to its provider
// through a journal keeper is SIGKILLed, with its whole process group, while
// a create is in flight (the cloud made the object, the provider holds its
// answer) or while none is. The keeper and the provider are in no group of
// the client's: the create's answer reaches the answer file, whole, naming
// the object the cloud holds; then the keeper kills the provider and exits.
// Killed with no create in flight, both end at once.
func TestKeeperKeepsAnswerOfKilledClient(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	path := tfplugintest.Build(t, tfplugintest.Framework)
	for _, tc := range []struct {
		name string
		hold string // "": no create in flight
	}{
		{"create in flight", "2s"},
		{"idle", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cloud, answers := t.TempDir(), t.TempDir()
			answer := filepath.Join(answers, state.AnswerName("fwtest_held.a"))
			c := exec.Command(os.Args[0])
			c.Env = append(os.Environ(), keeperClientEnv+"=1", "KEEPER_PROVIDER="+path, "KEEPER_CLOUD="+cloud,
				"KEEPER_HOLD="+tc.hold, "KEEPER_ANSWER="+answer)
			c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			c.Stderr = os.Stderr
			out, err := c.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL); _ = c.Wait() }()
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				t.Fatalf("client: %v", err)
			}
			var keeper, plugin int
			if _, err := fmt.Sscanf(line, "pids %d %d", &keeper, &plugin); err != nil || keeper == 0 || plugin == 0 {
				t.Fatalf("client said %q", line)
			}
			if keeper == c.Process.Pid {
				t.Fatalf("the provider %d is the client's own child, not a keeper's", plugin)
			}
			if tc.hold != "" {
				for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
					if objs, _ := filepath.Glob(filepath.Join(cloud, "held-*.json")); len(objs) > 0 {
						break
					}
					if time.Now().After(deadline) {
						t.Fatal("the create never reached the cloud")
					}
				}
			}
			if err := syscall.Kill(-c.Process.Pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = c.Wait()
			if !waitGone(keeper, 20*time.Second) || !waitGone(plugin, 5*time.Second) {
				t.Fatalf("after the client was killed: keeper %d alive %v, provider %d alive %v", keeper, alive(keeper), plugin, alive(plugin))
			}
			data, err := os.ReadFile(answer)
			if tc.hold == "" {
				if !errors.Is(err, os.ErrNotExist) {
					t.Errorf("an answer file with no create: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("the in-flight create's answer was not kept: %v", err)
			}
			a, err := state.DecodeAnswer(filepath.Base(answer), data)
			if err != nil {
				t.Fatal(err)
			}
			if a.Address != "fwtest_held.a" || a.Type != "fwtest_held" {
				t.Errorf("answer for %s %s, want fwtest_held.a fwtest_held", a.Address, a.Type)
			}
			p, _ := start(t, tfplugintest.Framework)
			resp, err := p.DecodeAnswer(t.Context(), a.Type, a.Response)
			if err != nil {
				t.Fatal(err)
			}
			if got := props(resp.NewState); got["id"] != "held-1" {
				t.Errorf("the kept answer's object: %v, want held-1, the item the cloud made", got)
			}
		})
	}
}

// TestKeeperWritesAnswerBeforeForwarding: through a keeper, a create's
// answer is on disk by the time the client has it; a call without
// AnswerTo leaves none; Close ends the keeper and the provider.
func TestKeeperWritesAnswerBeforeForwarding(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	before := goroutines()
	p, err := tfplugin.Start(t.Context(), tfplugin.Config{
		Name: "fwtest", Path: tfplugintest.Build(t, tfplugintest.Framework), Keeper: []string{os.Args[0], tfplugin.KeeperArg},
	})
	if err != nil {
		t.Fatal(err)
	}
	configure(t, p, map[string]any{"dir": t.TempDir()})
	plugin := p.Pid()
	keeper := keeperPID(plugin)
	answer := filepath.Join(t.TempDir(), state.AnswerName("fwtest_held.a"))
	resp, err := heldCreate(p, "0s", answer)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(answer)
	if err != nil {
		t.Fatalf("the answer is not on disk when the create returns: %v", err)
	}
	a, err := state.DecodeAnswer(filepath.Base(answer), data)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := p.DecodeAnswer(t.Context(), a.Type, a.Response)
	if err != nil {
		t.Fatal(err)
	}
	if !kept.NewState.RawEquals(resp.NewState) {
		t.Errorf("kept %v, the create returned %v", props(kept.NewState), props(resp.NewState))
	}
	if _, err := heldCreate(p, "0s", ""); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(answer)); len(ents) != 1 {
		t.Errorf("%d files among the answers, want the one asked for", len(ents))
	}
	p.Close()
	if !waitGone(keeper, 5*time.Second) || !waitGone(plugin, 5*time.Second) {
		t.Errorf("after Close: keeper %d alive %v, provider %d alive %v", keeper, alive(keeper), plugin, alive(plugin))
	}
	checkGoroutines(t, before)
}

// TestKeeperRefusesCreateWithoutNote: a create sent to the keeper whose
// note is gone (a call the killed apply wrote, reaching the keeper after
// the next apply closed the intent and removed the note) is not asked:
// the keeper creates no answer file, the provider makes no object, and
// the failure is ErrNotSent (the engine closes the intent: nothing was
// asked).
func TestKeeperRefusesCreateWithoutNote(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	p, cloud := startKept(t)
	answer := filepath.Join(t.TempDir(), state.AnswerName("fwtest_held.a"))
	_, err := heldCreateUnnoted(p, "0s", answer)
	if !errors.Is(err, tfplugin.ErrNotSent) {
		t.Fatalf("a create without its note: %v, want ErrNotSent", err)
	}
	if _, serr := os.Stat(answer); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("the keeper made an answer file the engine did not: %v", serr)
	}
	if ents, _ := os.ReadDir(cloud); len(ents) != 0 {
		t.Errorf("the cloud holds %d objects, want none: the provider was asked", len(ents))
	}
}
