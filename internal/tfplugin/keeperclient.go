package tfplugin

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// keeperConn is Kyku's side of a journal keeper (keeper.go): the pipe
// its calls go down and the answers waiting for their reply.
type keeperConn struct {
	fw        *frameWriter
	in        *os.File // the keeper's standard input, Kyku's end
	closeOnce sync.Once
	pid       atomic.Int64 // the provider's, from the handshake

	mu      sync.Mutex
	next    uint64
	pending map[uint64]chan keeperReply
	gone    bool

	// judged is closed once the keeper's first reply is read, or its
	// pipe ended without one; unspoken, set before, says why the keeper
	// is not one Kyku can speak to (nil: it is).
	judged   chan struct{}
	unspoken error
}

// startKeeper starts cfg.Keeper in a session of its own and asks it to
// launch the provider with env, trusting cert; the handshake line comes
// on line, the keeper's and the provider's logs go to logs.
func startKeeper(cfg Config, env []string, cert tls.Certificate, logs io.Writer, line chan<- string) (*exec.Cmd, *keeperConn, error) {
	key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		return nil, nil, fmt.Errorf("journal keeper: client key: %w", err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("journal keeper: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, fmt.Errorf("journal keeper: %w", err)
	}
	cmd := exec.Command(cfg.Keeper[0], cfg.Keeper[1:]...)
	cmd.Env = []string{} // the provider's environment goes in the setup, not here
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, logs
	// A session of its own: a kill of the apply's process group does
	// not reach the keeper, nor the provider it starts.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, nil, fmt.Errorf("journal keeper: %w", err)
	}
	k := &keeperConn{fw: &frameWriter{w: inW}, in: inW, pending: map[uint64]chan keeperReply{}, judged: make(chan struct{})}
	go k.read(outR, logs, line)
	setup := keeperSetup{Path: cfg.Path, Dir: cfg.Dir, Env: env, Cert: cert.Certificate[0], Key: key, Version: keeperProtocol}
	if err := k.fw.write(&setup); err != nil {
		k.close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, nil, fmt.Errorf("journal keeper: send the setup: %w", err)
	}
	return cmd, k, nil
}

// read takes the keeper's replies: the handshake (to line), then each
// call's (to its waiter), until the keeper is gone.
func (k *keeperConn) read(f *os.File, logs io.Writer, line chan<- string) {
	defer f.Close()
	r := bufio.NewReader(f) // a frame in one read, mostly
	var hs keeperReply
	err := readFrame(r, &hs)
	switch {
	case err != nil:
		k.unspoken = fmt.Errorf("the journal keeper ended without answering in journal keeper protocol %d (%v): a kyku-engine of another version?", keeperProtocol, err)
	case hs.Version != keeperProtocol:
		k.unspoken = fmt.Errorf("the journal keeper speaks journal keeper protocol %d, kyku %d: kyku-engine was replaced while kyku ran?", max(hs.Version, 1), keeperProtocol)
	}
	close(k.judged)
	if k.unspoken != nil {
		k.fail()
		k.close() // a keeper ends once Kyku's pipe is gone
		return
	}
	if hs.Err != "" {
		fmt.Fprintf(logs, "kyku journal keeper: %s\n", hs.Err)
		k.fail()
		return
	}
	k.pid.Store(int64(hs.PID))
	line <- hs.Handshake
	for {
		var rep keeperReply
		if err := readFrame(r, &rep); err != nil {
			k.fail()
			return
		}
		k.mu.Lock()
		ch := k.pending[rep.ID]
		delete(k.pending, rep.ID)
		k.mu.Unlock()
		if ch != nil {
			ch <- rep
		}
	}
}

// speaks waits (a few seconds at most) for the keeper's first reply, or
// for its pipe to end, and says why Kyku cannot speak to it (nil: it
// can, or no verdict came).
func (k *keeperConn) speaks() error {
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	select {
	case <-k.judged:
		return k.unspoken
	case <-t.C:
		return nil
	}
}

// fail ends every call waiting: the keeper is gone.
func (k *keeperConn) fail() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.gone = true
	for id, ch := range k.pending {
		close(ch)
		delete(k.pending, id)
	}
}

// errKeeperGone fails a call the keeper will not answer.
var errKeeperGone = &RPCError{Code: codeUnavailable, Message: "the journal keeper is gone"}

// call has the keeper make c and waits for its reply, or for ctx.
func (k *keeperConn) call(ctx context.Context, c keeperCall) (keeperReply, error) {
	ch := make(chan keeperReply, 1)
	k.mu.Lock()
	if k.gone {
		k.mu.Unlock()
		return keeperReply{}, errKeeperGone
	}
	k.next++
	c.ID = k.next
	k.pending[c.ID] = ch
	k.mu.Unlock()
	forget := func() {
		k.mu.Lock()
		delete(k.pending, c.ID)
		k.mu.Unlock()
	}
	if err := k.fw.write(&c); err != nil {
		forget()
		return keeperReply{}, &RPCError{Code: codeUnavailable, Message: "the journal keeper: " + err.Error()}
	}
	select {
	case rep, ok := <-ch:
		if !ok {
			return keeperReply{}, errKeeperGone
		}
		return rep, nil
	case <-ctx.Done():
		forget()
		return keeperReply{}, context.Cause(ctx)
	}
}

// keeperChild is the process ID of the provider its keeper launched (0:
// no keeper, or no handshake yet).
func (p *Provider) keeperChild() int {
	if p.keeper == nil {
		return 0
	}
	return int(p.keeper.pid.Load())
}

// close tells the keeper Kyku is done: it ends once its calls have.
func (k *keeperConn) close() {
	k.closeOnce.Do(func() { k.in.Close() })
}

// noteRead is called with a note's path once Kyku has read its Note for
// the call it sends (tests note the address again there, as a later
// apply would).
var noteRead = func(string) {}

// invokeKept makes the call method with req through the keeper, its
// answer kept as r's (ApplyRequest.AnswerTo) before it comes back. The
// call names the Note the engine noted (ApplyRequest.Note), or, without
// one, the Note of the note at r.AnswerTo as it is now: the keeper asks
// the provider only while the note there is that one.
func (p *Provider) invokeKept(ctx context.Context, method string, req message, resp decoder, r ApplyRequest) error {
	token := r.Note
	if token == "" {
		var err error
		if token, err = noteToken(r.AnswerTo, r.Address); err != nil {
			return p.named(ctx, method, notSent(err))
		}
		noteRead(r.AnswerTo)
	}
	rep, err := p.keeper.call(ctx, keeperCall{
		Method: method, Body: req.appendTo(make([]byte, 0, 512)), AnswerTo: r.AnswerTo, Address: r.Address, Type: r.TypeName, Note: token,
	})
	switch {
	case err != nil:
	case rep.Code != codeOK:
		err = &RPCError{Code: rep.Code, Message: rep.Message}
	case rep.Body != nil:
		// Kept or not (rep.Err: the answer file could not be written),
		// the answer is the provider's: Kyku records it.
		err = resp.decode(rep.Body)
	case rep.NotSent:
		err = notSent(errors.New("the journal keeper: " + rep.Err))
	case rep.Err != "":
		err = &RPCError{Code: codeUnavailable, Message: "the journal keeper: " + rep.Err}
	default:
		err = &RPCError{Code: codeInternal, Message: "no answer to a unary call"}
	}
	return p.named(ctx, method, err)
}

// usesKeeper reports whether r's call goes through the keeper.
func (p *Provider) usesKeeper(r ApplyRequest) bool {
	return p.keeper != nil && r.AnswerTo != ""
}

// DecodeAnswer reads raw, the answer a journal keeper kept of a create of
// typeName (state.Answer.Response), as ApplyResourceChange would have
// returned it: decoded with the provider's schema.
func (p *Provider) DecodeAnswer(ctx context.Context, typeName string, raw []byte) (ApplyResponse, error) {
	rs, err := p.resourceSchema(ctx, typeName, false)
	if err != nil {
		return ApplyResponse{}, err
	}
	resp := newApplyResponse()
	if err := resp.decode(raw); err != nil {
		return ApplyResponse{}, p.badAnswer("ApplyResourceChange", err)
	}
	return p.applyAnswer(resp, rs.Block.ImpliedType())
}
