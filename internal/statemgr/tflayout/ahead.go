package tflayout

import (
	"bytes"
	"context"

	"github.com/kyku/action/internal/tfstate"
)

// A read ahead (ReadAhead) reads and decodes the state before the lock is
// taken, while the caller has other work (a plan expanding its
// configuration); the read under the lock (load) still reads the state
// and what Kyku keeps beside it, and takes what was decoded ahead only
// when both are byte for byte the ones read ahead (the state by its
// SHA-256, which that read computes anyway; what is beside it compared
// whole). So nothing decided under the lock rests on a read made without
// it: a state written in between (or half-written when it was read
// ahead, OpenTofu writing in place) is decoded again.

// ahead is a read ahead's outcome, ready once done is closed.
type ahead struct {
	done chan struct{}

	digest    string // of the state as read
	extraData []byte // what was kept beside it, as read (nil: nothing)
	f         *tfstate.File
	extra     *tfstate.Extra
	br        *tfstate.Bridge
	ok        bool // all of it read and decoded
}

// ReadAhead begins reading and decoding the state in the background; the
// next Read takes what it decoded when the state is unchanged. Only one
// is kept: a second call, or one after a Read, does nothing.
func (b *Backend) ReadAhead(ctx context.Context) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ahead != nil || b.read {
		return
	}
	a := &ahead{done: make(chan struct{})}
	b.ahead = a
	go func() {
		defer close(a.done)
		a.ok = b.readAhead(ctx, a)
	}()
}

// readAhead fills a (b.mu not held: only what New set is read). What
// is kept beside the state is fetched and decoded beside the state's own
// read and decoding, as load does: the read ahead is the longer of the
// two jobs a plan runs at once, and its second half gets the core the
// configuration's expansion leaves.
func (b *Backend) readAhead(ctx context.Context, a *ahead) bool {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	aside := make(chan error, 1)
	go func() {
		var err error
		if a.extraData, err = b.extraBytes(ctx); err == nil && a.extraData != nil {
			a.extra, err = decodeExtra(b.opts.Name, a.extraData)
		}
		aside <- err
	}()
	ok := func() bool {
		data, _, err := b.slot.Get(ctx)
		if err != nil {
			return false
		}
		if a.f, err = tfstate.Decode(b.slot.Where(), data); err != nil {
			return false
		}
		a.digest = digestOf(data)
		return true
	}()
	if !ok {
		cancel()
	}
	if err := <-aside; err != nil || !ok {
		return false
	}
	var err error
	a.br, err = tfstate.NewBridge(a.f, b.bridgeOptions(withDigest(a.extra, a.digest)))
	return err == nil
}

// takeAhead is the read ahead, once it is done, and forgets it (b.mu
// held); nil when none was begun or it did not get through.
func (b *Backend) takeAhead(ctx context.Context) *ahead {
	a := b.ahead
	if a == nil {
		return nil
	}
	b.ahead = nil
	select {
	case <-a.done:
	case <-ctx.Done():
		return nil
	}
	if !a.ok {
		return nil
	}
	return a
}

// sameState reports whether the state of that digest (digestOf) is the
// one read ahead.
func (a *ahead) sameState(digest string) bool { return a != nil && a.digest == digest }

// stateIf is the state decoded ahead when its digest is digest, else nil.
func (a *ahead) stateIf(digest string) *tfstate.File {
	if !a.sameState(digest) {
		return nil
	}
	return a.f
}

// sameExtra reports whether data (nil: none) is what was kept beside it
// when read ahead.
func (a *ahead) sameExtra(data []byte) bool {
	return a != nil && (data == nil) == (a.extraData == nil) && bytes.Equal(a.extraData, data)
}
