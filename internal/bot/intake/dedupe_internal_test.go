package intake

import (
	"testing"
	"time"
)

func TestDeliveriesBoundedWithTTL(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	d := newDeliveries(3, time.Hour, func() time.Time { return now })
	for _, step := range []struct {
		id      string
		advance time.Duration
		want    bool
	}{
		{"a", 0, true},
		{"a", 0, false}, // duplicate
		{"b", 0, true},
		{"c", 0, true},
		{"d", 0, true},                 // evicts a (capacity 3)
		{"a", 0, true},                 // forgotten, so new again
		{"d", 59 * time.Minute, false}, // still remembered
		{"d", 2 * time.Minute, true},   // past the TTL
	} {
		now = now.Add(step.advance)
		if got := d.add(step.id); got != step.want {
			t.Errorf("add(%q) after %s = %v, want %v", step.id, step.advance, got, step.want)
		}
	}
	if d.order.Len() > 3 || len(d.byID) != d.order.Len() {
		t.Errorf("holds %d (index %d), want at most 3", d.order.Len(), len(d.byID))
	}
	d.forget("d")
	if !d.add("d") {
		t.Error("a forgotten delivery is still a duplicate")
	}
}
