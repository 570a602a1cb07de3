package lease

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/value"
)

// Store is what leases and run journals are written with: the
// conditional writes of a backend, and the listing of its objects.
type Store interface {
	statemgr.Conditional
	ListObjects(ctx context.Context, prefix string) ([]string, error)
}

// Options tune a Manager. Zero values get the defaults named on each
// field, the state lock's.
type Options struct {
	// Timeout is how long Acquire waits for a leased object (default
	// 30s); negative: do not wait.
	Timeout time.Duration
	// StaleAfter is the age of a lease's heartbeat past which its holder
	// is taken for gone and the lease is taken over (default 5m).
	StaleAfter time.Duration
	// Heartbeat is how often a held lease is renewed (default 60s).
	Heartbeat time.Duration
	// Poll is how often a waiting Acquire looks again (default 1s, ±50%).
	Poll time.Duration
	// Now is the clock of heartbeats (default time.Now).
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.Timeout == 0 {
		o.Timeout = 30 * time.Second
	}
	if o.StaleAfter <= 0 {
		o.StaleAfter = 5 * time.Minute
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = time.Minute
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Holder says who holds a lease: the run (its random token, shared by
// every lease and journal entry of one apply), the pull request it
// applies when a bot or Action runs it, and the lock body a state lock
// would have (who, operation, run URL, host, pid, since).
type Holder struct {
	Run  string            `json:"run"`
	PR   int               `json:"pr,omitempty"`
	Lock statemgr.LockInfo `json:"lock"`
}

// Describe names the holder for messages.
func (h Holder) Describe() string {
	s := h.Lock.Describe()
	if h.PR > 0 {
		s += fmt.Sprintf(", pull request #%d", h.PR)
	}
	return s + ", run token " + h.Run
}

// record is a lease's body.
type record struct {
	Object    string    `json:"object"`
	Holder    Holder    `json:"holder"`
	Heartbeat time.Time `json:"heartbeat"`
}

// HeldError refuses an Acquire that gave up waiting for an object another
// run holds: Object is the one it waited for, Objects every one of those
// it asked for that the same run holds (sorted; Object among them).
type HeldError struct {
	Object  string
	Objects []string
	Holder  Holder
	Waited  time.Duration
	Err     error // the context's error, when it ended the wait
}

func (e *HeldError) Error() string {
	what := "object " + value.QuoteName(e.Object) + " is leased by another apply"
	if len(e.Objects) > 1 {
		quoted := make([]string, len(e.Objects))
		for i, o := range e.Objects {
			quoted[i] = value.QuoteName(o)
		}
		what = "objects " + strings.Join(quoted, ", ") + " are leased by another apply"
	}
	if e.Object == Whole {
		what = "the whole state is held by a whole-state operation"
	}
	msg := fmt.Sprintf("%s (%s); waited %s for it", what, e.Holder.Describe(), e.Waited)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *HeldError) Unwrap() error { return e.Err }

// Manager takes leases on the objects of one environment's state.
type Manager struct {
	store Store
	stem  string // "state" or "state.<env>", as the state's own key
	opts  Options
}

// New returns the Manager of environment env ("" for the default) on store.
func New(store Store, env string, opts Options) *Manager {
	stem := "state"
	if env != "" {
		stem += "." + env
	}
	return &Manager{store: store, stem: stem, opts: opts.withDefaults()}
}

func (m *Manager) prefix() string { return "leases/" + m.stem + "/" }

// key is the lease object of an object: its name's digest (names hold
// brackets, quotes and slashes no store key should).
func (m *Manager) key(object string) string {
	sum := sha256.Sum256([]byte(object))
	return m.prefix() + hex.EncodeToString(sum[:20]) + ".json"
}

// Acquire leases objects for holder, waiting while another run holds one
// of them, up to the timeout; then it returns a *HeldError naming the
// object and its holder. It takes the leases in name order, all or none:
// what it took is released before it waits.
func (m *Manager) Acquire(ctx context.Context, objects []string, holder Holder) (*Set, error) {
	if holder.Run == "" {
		holder.Run = statemgr.NewLockID()
	}
	objs := slices.Clone(objects)
	slices.Sort(objs)
	objs = slices.Compact(objs)
	w := statemgr.NewLockWait(m.opts.Timeout, m.opts.Poll, true)
	defer w.Stop()
	start := m.opts.Now()
	for {
		held, blocker, err := m.tryAll(ctx, objs, holder)
		if err != nil {
			return nil, err
		}
		if blocker == nil && !slices.Contains(objs, Whole) {
			// Taken: unless a whole-state operation holds the state (it
			// waits for these to go, and they for it).
			if blocker, err = m.wholeHeld(ctx, holder); blocker != nil || err != nil {
				m.release(context.WithoutCancel(ctx), held, holder.Run)
			}
			if err != nil {
				return nil, err
			}
		}
		if blocker == nil {
			s := &Set{m: m, holder: holder, held: held}
			s.beat = statemgr.StartHeartbeat(m.opts.Heartbeat, s.renew, func(err error) bool { return errors.Is(err, statemgr.ErrLockLost) })
			return s, nil
		}
		if again, cause := w.Wait(ctx, &blocker.Holder.Lock); !again {
			return nil, &HeldError{Object: blocker.Object, Objects: m.heldBy(context.WithoutCancel(ctx), objs, blocker), Holder: blocker.Holder,
				Waited: m.opts.Now().Sub(start).Round(time.Millisecond), Err: cause}
		}
	}
}

// tryAll takes every object's lease, or none: the first one held by a
// live other run is returned as blocker, the ones taken released.
func (m *Manager) tryAll(ctx context.Context, objs []string, holder Holder) (map[string]statemgr.Version, *record, error) {
	held := make(map[string]statemgr.Version, len(objs))
	for _, o := range objs {
		v, blocker, err := m.take(ctx, o, holder)
		if err == nil && blocker == nil {
			held[o] = v
			continue
		}
		m.release(context.WithoutCancel(ctx), held, holder.Run)
		return nil, blocker, err
	}
	return held, nil, nil
}

// take leases one object: a new lease, one of the same run's, or a stale
// one taken over on the version read.
func (m *Manager) take(ctx context.Context, object string, holder Holder) (statemgr.Version, *record, error) {
	for range 3 {
		v, blocker, err := m.takeOnce(ctx, object, holder)
		if !errors.Is(err, errReleased) {
			return v, blocker, err
		}
	}
	return "", &record{Object: object}, nil // it keeps coming and going: wait, and look again
}

// errReleased says the lease takeOnce found went away before it was read.
var errReleased = errors.New("lease released meanwhile")

func (m *Manager) takeOnce(ctx context.Context, object string, holder Holder) (statemgr.Version, *record, error) {
	key := m.key(object)
	body, err := json.Marshal(record{Object: object, Holder: holder, Heartbeat: m.opts.Now()})
	if err != nil {
		return "", nil, fmt.Errorf("encode lease of %s: %w", object, err)
	}
	v, err := m.store.CreateObject(ctx, key, body)
	if err == nil {
		return v, nil, nil
	}
	if !errors.Is(err, statemgr.ErrExists) {
		return "", nil, fmt.Errorf("lease %s: %w", value.QuoteName(object), err)
	}
	data, cur, err := m.store.ReadObject(ctx, key)
	if errors.Is(err, statemgr.ErrNotFound) {
		return "", nil, errReleased
	}
	if err != nil {
		return "", nil, fmt.Errorf("read lease of %s: %w", value.QuoteName(object), err)
	}
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		// Not a lease: its age is unknown, so it is never taken over.
		return "", nil, fmt.Errorf("lease of %s at %s is not a lease (remove it by hand): %w", value.QuoteName(object), key, err)
	}
	if r.Holder.Run != holder.Run && m.opts.Now().Sub(r.Heartbeat) < m.opts.StaleAfter {
		return "", &r, nil
	}
	v, err = m.store.ReplaceObject(ctx, key, body, cur)
	if errors.Is(err, statemgr.ErrConflict) {
		return "", &r, nil // someone else took it over first
	}
	if err != nil {
		return "", nil, fmt.Errorf("take over lease of %s: %w", value.QuoteName(object), err)
	}
	return v, nil, nil
}

// release deletes the leases in held, each only while still at its
// version; errors are left for the heartbeat of the next taker (a lease
// left behind goes stale).
//
// A lease at another version than held may still be this run's: a
// renewal that Stop cut short after the store had written it, its new
// version never learnt. Left, it would hold the object for StaleAfter; it
// is deleted at the version read, when the record read names run.
func (m *Manager) release(ctx context.Context, held map[string]statemgr.Version, run string) {
	for o, v := range held {
		err := m.store.DeleteObject(ctx, m.key(o), v)
		if !errors.Is(err, statemgr.ErrConflict) {
			continue
		}
		data, nv, err := m.store.ReadObject(ctx, m.key(o))
		var r record
		if err == nil && json.Unmarshal(data, &r) == nil && r.Object == o && r.Holder.Run == run {
			_ = m.store.DeleteObject(ctx, m.key(o), nv)
		}
	}
}

// Live returns the runs holding a lease whose heartbeat is fresh.
func (m *Manager) Live(ctx context.Context) (map[string]Holder, error) {
	recs, err := m.live(ctx)
	if err != nil {
		return nil, err
	}
	live := map[string]Holder{}
	for _, r := range recs {
		live[r.Holder.Run] = r.Holder
	}
	return live, nil
}

// live returns the leases whose heartbeat is fresh, by object name.
func (m *Manager) live(ctx context.Context) ([]record, error) {
	keys, err := m.store.ListObjects(ctx, m.prefix())
	if err != nil {
		return nil, fmt.Errorf("list leases: %w", err)
	}
	var live []record
	for _, k := range keys {
		data, _, err := m.store.ReadObject(ctx, k)
		if errors.Is(err, statemgr.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read lease %s: %w", k, err)
		}
		var r record
		if json.Unmarshal(data, &r) != nil {
			continue
		}
		if m.opts.Now().Sub(r.Heartbeat) < m.opts.StaleAfter {
			live = append(live, r)
		}
	}
	slices.SortFunc(live, func(a, b record) int { return strings.Compare(a.Object, b.Object) })
	return live, nil
}

// Set is the leases one Acquire took. Release it on every path.
type Set struct {
	m      *Manager
	holder Holder
	beat   *statemgr.Heartbeat

	mu   sync.Mutex
	held map[string]statemgr.Version
}

// Holder is the set's holder (its Run is the run's token).
func (s *Set) Holder() Holder { return s.holder }

// Objects returns the leased objects, sorted.
func (s *Set) Objects() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.held))
	for o := range s.held {
		out = append(out, o)
	}
	slices.Sort(out)
	return out
}

// Holds reports whether object is in the set.
func (s *Set) Holds(object string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.held[object]
	return ok
}

// renew writes a fresh heartbeat into every lease; a lease another run
// took over is lost (statemgr.ErrLockLost).
func (s *Set) renew(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for o, v := range s.held {
		body, err := json.Marshal(record{Object: o, Holder: s.holder, Heartbeat: s.m.opts.Now()})
		if err != nil {
			return err
		}
		nv, err := s.m.store.ReplaceObject(ctx, s.m.key(o), body, v)
		if errors.Is(err, statemgr.ErrConflict) {
			return fmt.Errorf("lease of %s was taken over: %w", value.QuoteName(o), statemgr.ErrLockLost)
		}
		if err != nil {
			return err
		}
		s.held[o] = nv
	}
	return nil
}

// Lost returns the error of a lease taken from the set, or nil.
func (s *Set) Lost() error { return s.beat.Lost() }

// Release stops the heartbeat and deletes the leases; it returns the
// error of a lease that was taken from the set meanwhile.
func (s *Set) Release(ctx context.Context) error {
	lost := s.beat.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m.release(ctx, s.held, s.holder.Run)
	s.held = nil
	return lost
}

// Sweep deletes the leases whose heartbeat is stale (left by runs that
// died), each only while still at the version read.
func (m *Manager) Sweep(ctx context.Context) error {
	keys, err := m.store.ListObjects(ctx, m.prefix())
	if err != nil {
		return fmt.Errorf("list leases: %w", err)
	}
	for _, k := range keys {
		data, v, err := m.store.ReadObject(ctx, k)
		if errors.Is(err, statemgr.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read lease %s: %w", k, err)
		}
		var r record
		if json.Unmarshal(data, &r) != nil || m.opts.Now().Sub(r.Heartbeat) < m.opts.StaleAfter {
			continue
		}
		if err := m.store.DeleteObject(ctx, k, v); err != nil && !errors.Is(err, statemgr.ErrConflict) {
			return fmt.Errorf("delete stale lease %s: %w", k, err)
		}
	}
	return nil
}

// heldBy returns those of objs whose lease blocker's run holds, sorted
// (blocker's own object at least).
func (m *Manager) heldBy(ctx context.Context, objs []string, blocker *record) []string {
	out := []string{blocker.Object}
	for _, o := range objs {
		if o == blocker.Object {
			continue
		}
		data, _, err := m.store.ReadObject(ctx, m.key(o))
		var r record
		if err == nil && json.Unmarshal(data, &r) == nil && r.Holder.Run == blocker.Holder.Run {
			out = append(out, o)
		}
	}
	slices.Sort(out)
	return out
}
