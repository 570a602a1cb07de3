package objstore_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/objstore"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

// memBucket is an in-memory Bucket that enforces preconditions as a store
// does and retries as s3's and gcs's do. lose[op] > 0 makes the next calls
// of op ("put", "delete") land and lose their answer: the retry then meets
// the first attempt's work (a precondition failure, a missing key), as
// Bucket's contract says. sawWait records whether a call carried the end
// of a Lock wait.
type memBucket struct {
	mu      sync.Mutex
	objects map[string]memObject
	gen     int
	lose    map[string]int
	sawWait bool
}

type memObject struct {
	data    []byte
	version objstore.Version
}

func newMemBucket() *memBucket {
	return &memBucket{objects: map[string]memObject{}, lose: map[string]int{}}
}

var (
	errGone  = objstore.Mark(errors.New("404 no such key"), objstore.ErrNotFound)
	errPre   = objstore.Mark(errors.New("412 precondition failed"), objstore.ErrPrecondition)
	_        = objstore.Bucket((*memBucket)(nil))
	testTime = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
)

func (m *memBucket) lost(op string) bool {
	if m.lose[op] > 0 {
		m.lose[op]--
		return true
	}
	return false
}

func (m *memBucket) Get(ctx context.Context, key string) (objstore.Object, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := objstore.LockWaitEnds(ctx); ok {
		m.sawWait = true
	}
	o, ok := m.objects[key]
	if !ok {
		return objstore.Object{}, errGone
	}
	return objstore.Object{Data: append([]byte(nil), o.data...), Version: o.version, Modified: testTime}, nil
}

func (m *memBucket) Put(ctx context.Context, key string, data []byte, c objstore.Cond) (objstore.Version, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := objstore.LockWaitEnds(ctx); ok {
		m.sawWait = true
	}
	v, err := m.put(key, data, c)
	if err == nil && m.lost("put") {
		return m.put(key, data, c) // the retry
	}
	return v, err
}

func (m *memBucket) put(key string, data []byte, c objstore.Cond) (objstore.Version, error) {
	cur, exists := m.objects[key]
	switch {
	case c.IfAbsent && exists:
		return "", errPre
	case c.IfMatch != "" && !exists:
		return "", errGone
	case c.IfMatch != "" && cur.version != c.IfMatch:
		return "", errPre
	}
	m.gen++
	v := objstore.Version(fmt.Sprint(m.gen))
	m.objects[key] = memObject{data: append([]byte(nil), data...), version: v}
	return v, nil
}

func (m *memBucket) Delete(_ context.Context, key string, v objstore.Version) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	err := m.del(key, v)
	if err == nil && m.lost("delete") {
		return true, m.del(key, v) // the retry: ambiguous
	}
	return false, err
}

func (m *memBucket) del(key string, v objstore.Version) error {
	cur, exists := m.objects[key]
	switch {
	case !exists:
		return errGone
	case cur.version != v:
		return errPre
	}
	delete(m.objects, key)
	return nil
}

func (m *memBucket) DeleteAll(_ context.Context, keys []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range keys {
		delete(m.objects, k)
	}
	return nil
}

func (m *memBucket) List(_ context.Context, prefix string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var keys []string
	for k := range m.objects {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, nil
}

func (m *memBucket) raw(prefix string) map[string][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string][]byte{}
	for k, o := range m.objects {
		if strings.HasPrefix(k, prefix) && !strings.HasSuffix(k, ".lock") {
			out[k] = o.data
		}
	}
	return out
}

func newBackend(m *memBucket, cfg objstore.Config, opts objstore.Options) *objstore.Backend {
	cfg.Name, cfg.Root = "mem", "mem://b/"
	return objstore.New(m, cfg, "test", opts)
}

// The whole conformance suite, in clear, sealed, and for stale locks, on
// a store that enforces exactly what Bucket's contract says.
func TestConformance(t *testing.T) {
	t.Parallel()
	opts := objstore.Options{LockTimeout: statemgrtest.LockTimeout, PollInterval: 5 * time.Millisecond}
	statemgrtest.Run(t, statemgrtest.SharedStore(
		func(*testing.T) *memBucket { return newMemBucket() },
		func(_ *testing.T, m *memBucket) statemgr.Backend {
			return newBackend(m, objstore.Config{Prefix: "p", BackupRetention: statemgrtest.BackupRetention}, opts)
		}))
}

func TestConformanceEncrypted(t *testing.T) {
	t.Parallel()
	statemgrtest.RunEncrypted(t, statemgrtest.SharedSealedStore(
		func(*testing.T) *memBucket { return newMemBucket() },
		func(_ *testing.T, m *memBucket, c statemgr.Codec) statemgr.Backend {
			return newBackend(m, objstore.Config{Prefix: "p", BackupRetention: statemgrtest.BackupRetention},
				objstore.Options{LockTimeout: statemgrtest.LockTimeout, PollInterval: 5 * time.Millisecond, Codec: c})
		},
		func(_ *testing.T, m *memBucket) map[string][]byte { return m.raw("p/") }))
}

func TestStale(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	stores := map[*testing.T]*memBucket{}
	statemgrtest.RunStale(t, func(t *testing.T, tm statemgrtest.LockTiming) statemgr.Backend {
		mu.Lock()
		m, ok := stores[t]
		if !ok {
			m = newMemBucket()
			stores[t] = m
		}
		mu.Unlock()
		return newBackend(m, objstore.Config{}, objstore.Options{
			LockTimeout: tm.LockTimeout, StaleAfter: tm.StaleAfter, Heartbeat: tm.Heartbeat, PollInterval: 5 * time.Millisecond})
	})
}

// Every conditional write whose answer is lost after it landed is
// recognised on the retry as Kyku's own: the lock, one backup (not two),
// one journal entry, the state, and the lock's release.
func TestLostAnswersAreRecognised(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	m := newMemBucket()
	b := newBackend(m, objstore.Config{Prefix: "p"}, objstore.Options{LockTimeout: time.Second})
	m.lose["put"] = 1
	l, err := b.Lock(ctx, statemgrtest.NewLockInfo("apply"))
	if err != nil {
		t.Fatalf("Lock after a lost answer: %v", err)
	}
	if !m.sawWait {
		t.Error("the calls of a waiting Lock did not carry the end of the wait (LockWaitEnds)")
	}
	f := statemgrtest.NewState("lin", 1, "web")
	m.lose["put"] = 1
	if _, err := b.Backup(ctx, f); err != nil {
		t.Fatalf("Backup after a lost answer: %v", err)
	}
	if list, _ := b.ListBackups(ctx); len(list) != 1 {
		t.Errorf("%d backups after one Backup whose answer was lost, want 1", len(list))
	}
	m.lose["put"] = 1
	if err := b.Append(ctx, state.Entry{Seq: 1, Lineage: "lin", Op: state.OpPut, Name: "web", Resource: statemgrtest.NewResource("web", 1)}); err != nil {
		t.Fatalf("Append after a lost answer: %v", err)
	}
	if got, _ := b.Entries(ctx); len(got) != 1 {
		t.Errorf("%d journal entries after one Append, want 1", len(got))
	}
	m.lose["put"] = 1
	if err := b.Write(ctx, f, statemgr.WriteOptions{}); err != nil {
		t.Fatalf("Write after a lost answer: %v", err)
	}
	if got, err := b.Read(ctx); err != nil || got.Metadata.Serial != 1 {
		t.Errorf("Read after the Write = %v, %v; want serial 1", got, err)
	}
	m.lose["delete"] = 1
	if err := l.Unlock(ctx); err != nil {
		t.Fatalf("Unlock after a lost answer: %v", err)
	}
	if keys, _ := m.List(ctx, "p/state.test.json.lock"); len(keys) != 0 {
		t.Errorf("lock object left behind: %v", keys)
	}
}

// A second backend's Write after the first one wrote is a conflict, not a
// lost answer: the stored bytes are not its own.
func TestConflictIsNotMistakenForALostAnswer(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	m := newMemBucket()
	a, b := newBackend(m, objstore.Config{}, objstore.Options{}), newBackend(m, objstore.Config{}, objstore.Options{})
	if _, err := b.Read(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.Write(ctx, statemgrtest.NewState("lin", 1, "web"), statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	err := b.Write(ctx, statemgrtest.NewState("lin", 1, "db"), statemgr.WriteOptions{})
	if !errors.Is(err, statemgr.ErrConflict) || !strings.Contains(err.Error(), "mem backend: write mem://b/state.test.json") {
		t.Errorf("Write over another run's state = %v, want a conflict naming the object", err)
	}
}

// An Unlocked backend writes no lock object and refuses force-unlock.
func TestUnlocked(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	m := newMemBucket()
	b := newBackend(m, objstore.Config{Unlocked: true}, objstore.Options{})
	l, err := b.Lock(ctx, statemgrtest.NewLockInfo("apply"))
	if err != nil {
		t.Fatal(err)
	}
	if keys, _ := m.List(ctx, ""); len(keys) != 0 {
		t.Errorf("an Unlocked backend stored %v", keys)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Errorf("Unlock: %v", err)
	}
	if err := b.ForceUnlock(ctx, l.Info().ID); err == nil || !strings.Contains(err.Error(), "lock: false") {
		t.Errorf("ForceUnlock on an Unlocked backend = %v, want a refusal naming lock: false", err)
	}
}

// The conditional writes offered to other records (statemgr.Conditional)
// recognise their own landed writes too: a create, a replace and a delete
// whose answers were lost succeed once, and an unlocked store refuses
// them.
func TestConditionalLostAnswersAndUnlockedStore(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	m := newMemBucket()
	b := newBackend(m, objstore.Config{Prefix: "p"}, objstore.Options{})
	m.lose["put"] = 1
	v, err := b.CreateObject(ctx, "claims/a.json", []byte(`{"t":1}`))
	if err != nil {
		t.Fatalf("CreateObject after a lost answer: %v", err)
	}
	m.lose["put"] = 1
	if v, err = b.ReplaceObject(ctx, "claims/a.json", []byte(`{"t":2}`), v); err != nil {
		t.Fatalf("ReplaceObject after a lost answer: %v", err)
	}
	if data, got, _ := b.ReadObject(ctx, "claims/a.json"); string(data) != `{"t":2}` || got != v {
		t.Errorf("ReadObject = %s at %q, want the replaced body at %q", data, got, v)
	}
	m.lose["delete"] = 1
	if err := b.DeleteObject(ctx, "claims/a.json", v); err != nil {
		t.Fatalf("DeleteObject after a lost answer: %v", err)
	}
	if keys, _ := m.List(ctx, "p/claims/"); len(keys) != 0 {
		t.Errorf("left behind: %v", keys)
	}
	u := newBackend(m, objstore.Config{Unlocked: true}, objstore.Options{})
	if _, err := u.CreateObject(ctx, "claims/b.json", []byte(`{}`)); !errors.Is(err, statemgr.ErrNotConditional) {
		t.Errorf("CreateObject on an unlocked store: %v, want ErrNotConditional", err)
	}
}
