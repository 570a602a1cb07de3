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

// ahead is a read ahead, its outcome ready once done is closed.
type ahead struct {
	done chan struct{}
	r    *stateRead // nil: it did not get through
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
		if r, err := b.readState(ctx, nil); err == nil && !r.none {
			a.r = r
		}
	}()
}

// takeAhead is what the read ahead read, once it is done, and forgets it
// (b.mu held); nil when none was begun or it did not get through.
func (b *Backend) takeAhead(ctx context.Context) *stateRead {
	a := b.ahead
	if a == nil {
		return nil
	}
	b.ahead = nil
	select {
	case <-a.done:
		return a.r
	case <-ctx.Done():
		return nil
	}
}

// sameState reports whether the state of that digest (digestOf) is the
// one r read.
func (r *stateRead) sameState(digest string) bool { return r != nil && r.digest == digest }

// stateIf is the state r decoded when its digest is digest, else nil.
func (r *stateRead) stateIf(digest string) *tfstate.File {
	if !r.sameState(digest) {
		return nil
	}
	return r.f
}

// sameExtra reports whether data (nil: none) is what r read kept beside
// the state.
func (r *stateRead) sameExtra(data []byte) bool {
	return r != nil && (data == nil) == (r.extraData == nil) && bytes.Equal(r.extraData, data)
}
