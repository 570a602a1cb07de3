package tfplugin

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"sync"
	"time"

	"github.com/kyku/action/internal/state"
)

// KeeperArg is the argument that makes kyku-engine the journal keeper of
// one provider process (ServeKeeper), as Start runs it (Config.Keeper).
const KeeperArg = "__kyku-journal-keeper"

// The journal keeper is the provider's parent, in a session of its own,
// so that a kill of the apply's process group (a runner cancelled, a
// SIGKILL) reaches neither it nor the provider: it launches the provider
// (owning its standard output and error, so the provider does not die
// writing to a closed pipe), hands Kyku the handshake, and makes, for
// Kyku, the creates whose intent is journaled. Kyku makes every other
// call to the provider itself. A create's answer is written to its
// answer file (state.Answer), durably, before it is forwarded: killed
// while the provider works, Kyku loses nothing the provider answered,
// and the next apply folds the answer into the state. Once Kyku's side
// of the pipe is gone and no call is in flight, the keeper kills the
// provider and exits; it exits too when the provider does.

// ServeKeeper runs the journal keeper over in and out (Kyku's frames,
// keeperframe.go); the provider's logs go to logs. It returns the exit
// code.
func ServeKeeper(in io.Reader, out, logs io.Writer) int {
	// The provider dies with the thread that started it (Pdeathsig):
	// this one, kept until the keeper ends.
	runtime.LockOSThread()
	// One processor: the keeper relays one create at a time per Kyku
	// worker, and idle processors spinning for the next goroutine woken
	// by the pipe or the socket cost it more CPU than they save
	// (BenchmarkApplyCreates: about 15% less of the keeper's CPU).
	runtime.GOMAXPROCS(1)
	if err := serveKeeper(in, out, logs); err != nil {
		fmt.Fprintf(logs, "kyku journal keeper: %v\n", err)
		return 1
	}
	return 0
}

func serveKeeper(stdin io.Reader, out, logs io.Writer) error {
	fw := &frameWriter{w: out}
	in := bufio.NewReader(stdin) // a frame in one read, mostly
	var setup keeperSetup
	if err := readFrame(in, &setup); err != nil {
		return fmt.Errorf("read the setup: %w", err)
	}
	if setup.Version != keeperProtocol {
		// Answered in the layout that Kyku reads: a reply of protocol 1
		// has no version.
		err := fmt.Errorf("kyku speaks journal keeper protocol %d, this keeper %d (kyku-engine was replaced while kyku ran?): not launching the provider", setup.Version, keeperProtocol)
		rep := keeperReply{Err: err.Error()}
		if setup.Version > 1 {
			rep.Version = keeperProtocol
		}
		_ = fw.write(&rep)
		return err
	}
	line := make(chan string, 1)
	cmd := exec.Command(setup.Path)
	cmd.Dir, cmd.Env = setup.Dir, setup.Env
	// The provider's output goes through writers the keeper owns that never
	// fail: given the keeper's own stderr (Kyku's pipe), the provider would
	// die of SIGPIPE at its next log line once Kyku is gone, mid-create.
	drained := &drain{w: logs}
	cmd.Stdout = &handshakeWriter{line: line, rest: drained}
	cmd.Stderr = drained
	cmd.SysProcAttr = keeperChildAttr()
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		_ = fw.write(&keeperReply{Err: err.Error(), Version: keeperProtocol})
		return err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	kill := func() { _ = cmd.Process.Kill(); <-exited }

	hs, err := awaitHandshake(context.Background(), line, exited, defaultStartTimeout)
	if err != nil {
		if !errors.Is(err, errExitedBeforeHandshake) {
			kill()
		}
		_ = fw.write(&keeperReply{Err: err.Error(), Version: keeperProtocol})
		return nil
	}
	network, addr, _, serverCert, err := parseHandshake(hs)
	if err == nil {
		err = fw.write(&keeperReply{Handshake: hs, PID: cmd.Process.Pid, Version: keeperProtocol})
	}
	if err != nil {
		kill()
		return err
	}
	key, err := x509.ParsePKCS8PrivateKey(setup.Key)
	if err != nil {
		kill()
		return fmt.Errorf("read the client key: %w", err)
	}
	conn := dialRPC(network, addr, providerTLS(tls.Certificate{Certificate: [][]byte{setup.Cert}, PrivateKey: key}, serverCert), nil)
	defer conn.close()
	kept := &answerLogs{}
	defer kept.close()

	// stopped (under mu) ends the reader's calls once the provider
	// exited: WaitGroup.Go may not run beside a Wait that could have
	// found the group empty.
	var (
		inFlight sync.WaitGroup
		mu       sync.Mutex
		stopped  bool
	)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		for {
			var c keeperCall
			if readFrame(in, &c) != nil {
				return
			}
			mu.Lock()
			if stopped {
				mu.Unlock()
				return
			}
			inFlight.Go(func() {
				r := keep(conn, &c, kept)
				_ = fw.write(&r)
			})
			mu.Unlock()
		}
	}()
	select {
	case <-readDone:
		// Kyku is gone (or done): the calls it made finish, their
		// answers are kept, then the provider goes.
		inFlight.Wait()
		kill()
	case <-exited:
		mu.Lock()
		stopped = true
		mu.Unlock()
		inFlight.Wait()
	}
	return nil
}

// keep makes call c and, for a create, writes its answer to c.AnswerTo
// (and logs, keeperanswer.go) before returning it; a create whose note
// is not there, or not of c.Note, is refused without asking the
// provider.
func keep(conn *rpcConn, c *keeperCall, logs *answerLogs) keeperReply {
	var note *answerFile
	if c.AnswerTo != "" {
		// Durably before the provider is asked: the create may make an
		// object from now on.
		var err error
		// The note must be the one the call was made for (its Note):
		// a call of an apply that ended, reaching the keeper after a
		// later apply noted the address again, is refused unasked.
		if note, err = markAsked(c.AnswerTo, state.Answer{Address: c.Address, Type: c.Type, Asked: true}, c.Note, logs); err != nil {
			return keeperReply{ID: c.ID, Err: err.Error(), NotSent: true}
		}
		defer note.close()
	}
	var body []byte
	err := conn.call(context.Background(), c.Method, rawMessage(c.Body), func(b []byte) error {
		if body != nil {
			return &RPCError{Code: codeInternal, Message: "more than one answer to a unary call"}
		}
		body = b
		return nil
	})
	r := keeperReply{ID: c.ID, Body: body}
	if err != nil {
		var re *RPCError
		if !errors.As(err, &re) {
			r.Err = err.Error()
			return r
		}
		r.Code, r.Message = re.Code, re.Message
		return r
	}
	if note != nil && body != nil {
		if err := note.answer(state.Answer{Address: c.Address, Type: c.Type, Asked: true, Response: body}); err != nil {
			r.Err = err.Error()
		}
	}
	return r
}

// drain passes what a provider writes on to w until w fails once (Kyku
// gone), then drops it; it never fails, so the provider's writes never
// do either.
type drain struct {
	mu     sync.Mutex
	w      io.Writer
	broken bool
}

func (d *drain) Write(b []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.broken {
		if _, err := d.w.Write(b); err != nil {
			d.broken = true
		}
	}
	return len(b), nil
}
