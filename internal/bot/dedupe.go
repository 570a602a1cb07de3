package bot

import (
	"container/list"
	"sync"
	"time"
)

// deliveries remembers recent X-GitHub-Delivery IDs (bounded LRU with a
// TTL), so a redelivered webhook runs its job once per replica.
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
