package tflayout

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/tfstate"
)

var _ statemgr.Backend = (*Backend)(nil)

// Options tune a Backend. Zero values get the defaults named on each field.
type Options struct {
	// Workspace is the Terraform workspace ("" or "default" for the
	// default one): Kyku's environment.
	Workspace string
	// LockTimeout is how long Lock waits for a held lock (default 0: try
	// once, as OpenTofu's -lock-timeout defaults to 0s). Negative: once.
	LockTimeout time.Duration
	// PollInterval is how often a waiting Lock looks again (default 1s).
	PollInterval time.Duration
	// Version is what a Kyku lock body says in Version (default "kyku").
	Version string
	// Provider is tfstate.BridgeOptions' (a new resource's provider address).
	Provider func(tfstate.InstanceAddr) string
	// KykuType is tfstate.BridgeOptions' (the type Kyku's model gives a
	// resource of an aliased provider configuration).
	KykuType func(typ, provider string) string
	// Now is the clock for lock bodies (default time.Now).
	Now func() time.Time
	// Hostname and PID are recorded in Kyku's lock body.
	Hostname string
	PID      int
	// Name starts the backend's description ("local", "s3", …).
	Name string
}

// WithDefaults is o with what it leaves empty taken from the backend's own
// options (its clock, hostname and PID), then from the process.
func (o Options) WithDefaults(now func() time.Time, hostname string, pid int) Options {
	if o.Now == nil {
		o.Now = now
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Hostname == "" {
		o.Hostname = hostname
	}
	if o.Hostname == "" {
		o.Hostname, _ = os.Hostname()
	}
	if o.PID == 0 {
		o.PID = pid
	}
	if o.PID == 0 {
		o.PID = os.Getpid()
	}
	return o
}

// Backend keeps one workspace's state in a Slot and Kyku's additions in an
// Aside. Build it with New.
type Backend struct {
	slot  Slot
	aside Aside
	opts  Options
	// empties is tfstate.BridgeOptions' Empties, once SetEmpties gave it
	// (not under mu: the bridge asks it while a write holds mu).
	empties atomic.Pointer[func(typ string) map[string]any]

	mu     sync.Mutex
	bridge *tfstate.Bridge // of the state last read or written; nil: none, or not built yet
	stored *tfstate.File   // that state
	// pending is what Kyku keeps beside stored when a Write stored it:
	// its bridge is built from both at the first call that needs it
	// (bridgeOf), as most applies write their last state and need none.
	// nil: bridge is stored's, or there is no state.
	pending *tfstate.Extra
	built   int // the bridges built, which a test counts
	taken   int // the reads ahead a read took whole, which a test counts
	// storedCompact is stored in tfstate's Compact form, kept from the
	// write that stored it (nil: not encoded yet): a write compares its
	// state with it, and a backup copies it, without encoding stored again.
	storedCompact []byte
	version       statemgr.Version
	digest        string // of its bytes
	read          bool   // Read or Write ran: version is what is stored
	lockID        string // the lock this Backend holds, "" when none
	ahead         *ahead // a read begun ahead of the lock (ReadAhead), not taken yet
}

// New returns a Backend on slot and aside.
func New(slot Slot, aside Aside, opts Options) *Backend {
	if opts.Workspace == "default" {
		opts.Workspace = ""
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = time.Second
	}
	if opts.Version == "" {
		opts.Version = "kyku"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Name == "" {
		opts.Name = "terraform"
	}
	return &Backend{slot: slot, aside: aside, opts: opts}
}

// Describe names the backend and where the state is.
func (b *Backend) Describe() string { return b.opts.Name + " " + b.slot.Where() }

// Identity names the state wholly, for a hash that is never shown (a
// journal keeper's answer box): the slot's Identity where its Where
// leaves out what tells two states apart (an http address's query).
func (b *Backend) Identity() string {
	if s, ok := b.slot.(statemgr.Identified); ok {
		return b.opts.Name + " " + s.Identity()
	}
	return b.Describe()
}

// Read returns the state in Kyku's model, or (nil, nil) when there is
// none. What Kyku kept beside it for this very version of the state comes
// with it.
func (b *Backend) Read(ctx context.Context) (*state.File, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.load(ctx)
}

// load reads the state (b.mu held), taking what a read ahead decoded for
// what is byte for byte as it read it (ahead.go).
func (b *Backend) load(ctx context.Context) (*state.File, error) {
	pre := b.takeAhead(ctx)
	r, err := b.readState(ctx, pre)
	if err != nil {
		return nil, err
	}
	if r.none {
		b.bridge, b.pending, b.stored, b.storedCompact, b.version, b.digest, b.read = nil, nil, nil, nil, "", "", true
		return nil, nil
	}
	b.built++ // one state mapped into Kyku's model for this read, here or ahead
	if pre != nil && r.br == pre.br {
		b.taken++
	}
	b.bridge, b.pending, b.stored, b.storedCompact, b.version, b.digest, b.read = r.br, nil, r.f, nil, r.version, r.digest, true
	return r.br.State(), nil
}

// stateRead is one read of the state and of what Kyku keeps beside it,
// decoded and mapped into Kyku's model.
type stateRead struct {
	none      bool // there is no state
	version   statemgr.Version
	digest    string // of the state's bytes
	extraData []byte // what is kept beside it, as stored (nil: nothing)
	f         *tfstate.File
	extra     *tfstate.Extra // extraData decoded
	br        *tfstate.Bridge
}

// readState reads the state and what Kyku keeps beside it at once (one
// round trip to a remote store instead of two, their decoding on two
// cores), taking from pre (a read ahead; nil: none) what it decoded of
// what is byte for byte as it read it. What is beside the state is taken
// only once the state was read and decoded: an error of the state's comes
// first. It reads only what New set, so it needs no b.mu.
func (b *Backend) readState(ctx context.Context, pre *stateRead) (*stateRead, error) {
	type extraRead struct {
		data  []byte
		extra *tfstate.Extra
		err   error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	aside := make(chan extraRead, 1)
	go func() {
		data, err := b.extraBytes(ctx)
		x := extraRead{data: data, err: err}
		switch {
		case err != nil || data == nil:
		case pre.sameExtra(data):
			x.extra = pre.extra
		default:
			x.extra, x.err = decodeExtra(b.opts.Name, data)
		}
		aside <- x
	}()
	wait := func() { // no read outlives readState
		cancel()
		<-aside
	}
	data, v, err := b.slot.Get(ctx)
	if errors.Is(err, statemgr.ErrNotFound) {
		wait()
		return &stateRead{none: true}, nil
	}
	if err != nil {
		wait()
		return nil, fmt.Errorf("%s: read state: %w", b.opts.Name, err)
	}
	r := &stateRead{version: v, digest: digestOf(data)}
	if r.f = pre.stateIf(r.digest); r.f == nil {
		if r.f, err = tfstate.Decode(b.slot.Where(), data); err != nil {
			wait()
			return nil, err
		}
	}
	x := <-aside
	if x.err != nil {
		return nil, x.err
	}
	r.extraData, r.extra = x.data, x.extra
	if pre.sameState(r.digest) && pre.sameExtra(x.data) {
		r.br = pre.br
		return r, nil
	}
	if r.br, err = tfstate.NewBridge(r.f, b.bridgeOptions(withDigest(r.extra, r.digest))); err != nil {
		return nil, fmt.Errorf("%s: %w", b.slot.Where(), err)
	}
	return r, nil
}

// withDigest is extra as it holds for a state of that digest: all of it
// when Kyku wrote it beside that state; when OpenTofu wrote the state
// since, only the interrupted creates still apply
// (tfstate.Extra.Interrupted). nil stays nil.
func withDigest(extra *tfstate.Extra, digest string) *tfstate.Extra {
	if extra != nil && extra.Digest != digest {
		return &tfstate.Extra{Lineage: extra.Lineage, Interrupted: extra.Interrupted}
	}
	return extra
}

// newBridge maps f, with extra beside it (nil: none), into Kyku's model
// (b.mu held).
func (b *Backend) newBridge(f *tfstate.File, extra *tfstate.Extra) (*tfstate.Bridge, error) {
	b.built++
	return tfstate.NewBridge(f, b.bridgeOptions(extra))
}

// bridgeOptions are the options of a bridge with extra beside its state.
func (b *Backend) bridgeOptions(extra *tfstate.Extra) tfstate.BridgeOptions {
	return tfstate.BridgeOptions{Workspace: b.opts.Workspace, Extra: extra, Provider: b.opts.Provider, KykuType: b.opts.KykuType, Empties: b.emptiesFunc}
}

// bridgeOf is the bridge of the stored state, built here at the first
// call after the Write that stored it; nil when there is no state (b.mu
// held).
func (b *Backend) bridgeOf() (*tfstate.Bridge, error) {
	if b.bridge == nil && b.pending != nil {
		br, err := b.newBridge(b.stored, b.pending)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.slot.Where(), err)
		}
		b.bridge, b.pending = br, nil
	}
	return b.bridge, nil
}

// extraBytes is what Kyku kept beside the state as stored, nil when
// nothing.
func (b *Backend) extraBytes(ctx context.Context) ([]byte, error) {
	data, err := b.aside.GetObject(ctx, ExtraKey)
	if errors.Is(err, statemgr.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: read what kyku keeps beside the state: %w", b.opts.Name, err)
	}
	return data, nil
}

// decodeExtra decodes what Kyku kept beside the state (data, as stored).
func decodeExtra(name string, data []byte) (*tfstate.Extra, error) {
	e, err := tfstate.DecodeExtra(ExtraKey, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return e, nil
}

// Write stores f as a Terraform state: what changed since the state read,
// written over it. Unless forced, it is refused with statemgr.ErrConflict
// when the stored state changed since it was read, or f's lineage is
// another or its serial does not rise. When nothing in the Terraform state
// changed, it is not written (its serial stays), as OpenTofu does; what
// Kyku keeps beside it is, when that changed.
func (b *Backend) Write(ctx context.Context, f *state.File, opts statemgr.WriteOptions) error {
	if err := statemgr.CheckWritable(f); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.read {
		// Written without a Read: the stored state is the one to follow.
		if _, err := b.load(ctx); err != nil && !opts.Force {
			return err
		}
	}
	if b.stored != nil && !opts.Force {
		if err := statemgr.CheckSuccessor(b.stored.Lineage, int64(b.stored.Serial), f.Metadata); err != nil {
			return fmt.Errorf("%s: write state: %w", b.opts.Name, err)
		}
	}
	br, err := b.bridgeOf()
	if err != nil {
		return fmt.Errorf("%s: write state: %w", b.opts.Name, err)
	}
	if br == nil { // no state yet: a new one
		empty := &tfstate.File{TerraformVersion: tfstate.WriterVersion, Lineage: f.Metadata.Lineage}
		if br, err = b.newBridge(empty, nil); err != nil {
			return err
		}
	}
	next, extra, err := br.File(f)
	if err != nil {
		return fmt.Errorf("%s: write state: %w", b.opts.Name, err)
	}
	compact, err := tfstate.Encode(next, tfstate.Compact)
	if err != nil {
		return fmt.Errorf("%s: write state: %w", b.opts.Name, err)
	}
	if b.stored != nil && b.sameAsStored(next, compact) {
		// Nothing changed: no write, as OpenTofu makes none, and the
		// caller's serial is the stored one again, so that its next write
		// raises it by one. What is stored, and its encoding, stay.
		next.Serial = b.stored.Serial
		f.Metadata.Serial = int64(next.Serial)
		compact = b.storedCompact
	} else {
		data, err := tfstate.Reform(compact, b.slot.Form())
		if err != nil {
			return fmt.Errorf("%s: write state: %w", b.opts.Name, err)
		}
		on := b.version
		if opts.Force {
			on = Unconditional
		}
		v, err := b.slot.Put(ctx, data, on, b.lockID)
		if err != nil {
			return fmt.Errorf("%s: write state %s: %w", b.opts.Name, b.slot.Where(), err)
		}
		b.version, b.digest = v, digestOf(data)
	}
	extra.Serial, extra.Digest = next.Serial, b.digest
	if err := b.putExtra(ctx, extra); err != nil {
		return err
	}
	// next's bridge, which only a later Write, Tainted or Deposed needs,
	// is built then (bridgeOf): extra is the bridge's from here on.
	b.bridge, b.pending, b.stored, b.storedCompact = nil, extra, next, compact
	return nil
}

// compactStored is b.stored (not nil) in the Compact form, encoded at the
// first call after a read (b.mu held).
func (b *Backend) compactStored() ([]byte, error) {
	if b.storedCompact == nil {
		data, err := tfstate.Encode(b.stored, tfstate.Compact)
		if err != nil {
			return nil, err
		}
		b.storedCompact = data
	}
	return b.storedCompact, nil
}

// sameAsStored reports whether next is b.stored (not nil) but for its
// serial and the version that wrote it: what OpenTofu does not write again
// (its StatesMarshalEqual) and takes as the same state in a push. compact
// is next in the Compact form, or nil to encode it here. A state that
// cannot be encoded is not the same (b.mu held).
func (b *Backend) sameAsStored(next *tfstate.File, compact []byte) bool {
	if compact == nil || next.TerraformVersion != b.stored.TerraformVersion {
		c := *next
		c.TerraformVersion = b.stored.TerraformVersion
		var err error
		if compact, err = tfstate.Encode(&c, tfstate.Compact); err != nil {
			return false
		}
	}
	stored, err := b.compactStored()
	return err == nil && tfstate.SameButSerial(stored, compact)
}

// WholeStateOnly marks a Terraform state as one OpenTofu may also write:
// its applies keep OpenTofu's whole-state lock, never Kyku's per-object
// leases (lease.For).
func (b *Backend) WholeStateOnly() {}

// Unconditional is the version a forced Put writes on: whatever is stored.
const Unconditional statemgr.Version = "*"

func digestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// putExtra keeps e beside the state, or removes what was kept when e
// holds nothing.
func (b *Backend) putExtra(ctx context.Context, e *tfstate.Extra) error {
	if e.Empty() {
		if _, err := b.aside.GetObject(ctx, ExtraKey); errors.Is(err, statemgr.ErrNotFound) {
			return nil
		}
	}
	data, err := tfstate.EncodeExtra(e)
	if err != nil {
		return err
	}
	if err := b.aside.PutObject(ctx, ExtraKey, data); err != nil {
		return fmt.Errorf("%s: keep what kyku adds beside the state: %w", b.opts.Name, err)
	}
	return nil
}

// Tainted and Deposed are the bridge's lists for the state last read or
// written; none when its bridge cannot be built (the next Write says why).
func (b *Backend) Tainted() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	br, err := b.bridgeOf()
	if br == nil || err != nil {
		return nil
	}
	return br.Tainted()
}

func (b *Backend) Deposed() []tfstate.DeposedObject {
	b.mu.Lock()
	defer b.mu.Unlock()
	br, err := b.bridgeOf()
	if br == nil || err != nil {
		return nil
	}
	return br.Deposed()
}

// The journal, backups and objects are the Aside's.

func (b *Backend) Append(ctx context.Context, e state.Entry) error { return b.aside.Append(ctx, e) }
func (b *Backend) Entries(ctx context.Context) ([]state.Entry, error) {
	return b.aside.Entries(ctx)
}
func (b *Backend) ClearJournal(ctx context.Context) error { return b.aside.ClearJournal(ctx) }

// AnswerBox is the aside's, when it keeps answers (a local one) beside a
// state on this machine (LocalSlot); nil otherwise: the aside of a
// remote state (http's, in the root's .kyku/) may be in a checkout a
// pull request writes, and what an answer there says is not to be taken.
func (b *Backend) AnswerBox() statemgr.AnswerBox {
	if _, local := b.slot.(LocalSlot); !local {
		return nil
	}
	if k, ok := b.aside.(statemgr.AnswerKeeper); ok {
		return k.AnswerBox()
	}
	return nil
}
func (b *Backend) ListBackups(ctx context.Context) ([]statemgr.BackupInfo, error) {
	return b.aside.ListBackups(ctx)
}
func (b *Backend) ReadBackup(ctx context.Context, key string) (*state.File, error) {
	return b.aside.ReadBackup(ctx, key)
}
func (b *Backend) PutObject(ctx context.Context, key string, data []byte) error {
	return b.aside.PutObject(ctx, key, data)
}
func (b *Backend) GetObject(ctx context.Context, key string) ([]byte, error) {
	return b.aside.GetObject(ctx, key)
}
func (b *Backend) ListObjects(ctx context.Context, prefix string) ([]string, error) {
	return b.aside.ListObjects(ctx, prefix)
}

// SetEmpties gives the backend what each resource type's attributes hold
// when unset (the engine's providers' schemas, once started): a new
// instance is written with them, as OpenTofu writes it.
func (b *Backend) SetEmpties(f func(typ string) map[string]any) {
	b.empties.Store(&f)
}

// emptiesFunc is tfstate.BridgeOptions' Empties: what SetEmpties gave,
// read when the state is written.
func (b *Backend) emptiesFunc(typ string) map[string]any {
	f := b.empties.Load()
	if f == nil || *f == nil {
		return nil
	}
	return (*f)(typ)
}
