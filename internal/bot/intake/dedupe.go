package intake

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"github.com/kyku/action/internal/claim"
)

// A delivery runs once. X-GitHub-Delivery is not covered by the signature,
// so anyone holding one signed body (a proxy's log, a captured request)
// could post it again under a new ID: each delivery takes two keys, its ID
// and the sha256 of its signed body, and runs only when it gets both. A
// key is taken for the dedupe window.
//
// With a store (Options.Store, KYKU_BOT_STORE) the keys are claims in the
// backend (package claim: a conditional create), shared by every replica:
// of two replicas handed the same delivery, or the same body under two
// IDs, one runs it. The in-memory record comes first either way, so a
// replica answers its own duplicates without a round trip; without a
// store it is all there is, per replica.

// dedupeKeys are the keys a delivery takes: its ID's and its body's.
func dedupeKeys(id string, body []byte) (idKey, bodyKey string) {
	sum := sha256.Sum256([]byte(id))
	idKey = "deliveries/id-" + hex.EncodeToString(sum[:]) + ".json"
	sum = sha256.Sum256(body)
	bodyKey = "deliveries/body-" + hex.EncodeToString(sum[:]) + ".json"
	return idKey, bodyKey
}

// deduper takes a delivery's keys.
type deduper struct {
	mem    *deliveries
	claims *claim.Store // nil: in memory only
	holder string       // this replica, in the claims
	window time.Duration
}

// taken is what take took, for undo.
type taken struct {
	keys   []string
	claims []*claim.Claim
}

// Why a delivery did not run.
const (
	dupDelivery = "duplicate delivery"
	dupBody     = "replayed body: a delivery with this signed body already ran"
)

// take takes the keys of delivery id with body; dup says why it must not
// run ("" when it may). An error means the store could not be asked: the
// delivery must not run (and may be redelivered).
func (d *deduper) take(ctx context.Context, id, event string, body []byte) (dup string, t taken, err error) {
	idKey, bodyKey := dedupeKeys(id, body)
	note := event + " delivery " + id
	for _, k := range []struct{ key, dup string }{{idKey, dupDelivery}, {bodyKey, dupBody}} {
		if !d.mem.add(k.key) {
			return k.dup, t, nil
		}
		t.keys = append(t.keys, k.key)
		if d.claims == nil {
			continue
		}
		c, err := d.claims.Take(ctx, k.key, d.holder, note, d.window)
		if errors.Is(err, claim.ErrHeld) {
			return k.dup, t, nil
		}
		if err != nil {
			d.undo(ctx, t)
			return "", taken{}, err
		}
		t.claims = append(t.claims, c)
	}
	return "", t, nil
}

// undo gives back what take took (the delivery was not queued), so that
// GitHub's redelivery runs. A claim that cannot be released expires.
func (d *deduper) undo(ctx context.Context, t taken) {
	for _, k := range t.keys {
		d.mem.forget(k)
	}
	for _, c := range t.claims {
		_ = d.claims.Release(context.WithoutCancel(ctx), c)
	}
}

// deliveries remembers recent keys (bounded LRU with a TTL).
type deliveries struct {
	mu    sync.Mutex
	max   int
	ttl   time.Duration
	now   func() time.Time
	order *list.List // front: newest; values are delivery
	byID  map[string]*list.Element
}

type delivery struct {
	id   string
	seen time.Time
}

func newDeliveries(max int, ttl time.Duration, now func() time.Time) *deliveries {
	return &deliveries{max: max, ttl: ttl, now: now, order: list.New(), byID: map[string]*list.Element{}}
}

// add records id and reports whether it is new.
func (d *deliveries) add(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.now()
	for e := d.order.Back(); e != nil; e = d.order.Back() {
		if old := e.Value.(delivery); d.order.Len() > d.max || now.Sub(old.seen) > d.ttl {
			d.order.Remove(e)
			delete(d.byID, old.id)
			continue
		}
		break
	}
	if e, ok := d.byID[id]; ok {
		if now.Sub(e.Value.(delivery).seen) <= d.ttl {
			return false
		}
		d.order.Remove(e)
	}
	d.byID[id] = d.order.PushFront(delivery{id: id, seen: now})
	if d.order.Len() > d.max {
		e := d.order.Back()
		d.order.Remove(e)
		delete(d.byID, e.Value.(delivery).id)
	}
	return true
}

// forget drops id, so a redelivery is taken (the first was not queued).
func (d *deliveries) forget(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e, ok := d.byID[id]; ok {
		d.order.Remove(e)
		delete(d.byID, id)
	}
}
