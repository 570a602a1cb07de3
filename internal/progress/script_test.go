package progress

import (
	"errors"
	"sync"
	"time"

	"github.com/kyku/action/internal/plan"
)

var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// stage is a step of the scripted apply: the clock moves to now, then the
// events arrive.
type stage struct {
	now    time.Time
	events []Event
}

// scriptedApply is a small apply: creates, a retry, a failure, a skipped
// dependent and a destroy.
func scriptedApply() []stage {
	vpc := Event{Action: plan.Create, Type: "Vpc", Name: "main-vpc"}
	subnet := Event{Action: plan.Create, Type: "Subnet", Name: "subnet-a"}
	vm := Event{Action: plan.Create, Type: "Vm", Name: "web"}
	sg := Event{Action: plan.Update, Type: "SecurityGroup", Name: "web-sg"}
	lb := Event{Action: plan.Create, Type: "LoadBalancer", Name: "lb"}
	bucket := Event{Action: plan.Destroy, Type: "Bucket", Name: "old-logs"}
	ev := func(base Event, k Kind, t time.Time, mod func(*Event)) Event {
		base.Kind, base.Time = k, t
		if mod != nil {
			mod(&base)
		}
		return base
	}
	return []stage{
		{at(0), []Event{ev(vpc, Started, at(0), nil)}},
		{at(ms(1200)), []Event{
			ev(vpc, Done, at(ms(1200)), func(e *Event) { e.Elapsed, e.ID = ms(1200), "1001" }),
			ev(subnet, Started, at(ms(1200)), nil),
			ev(vm, Started, at(ms(1200)), nil),
			ev(sg, Started, at(ms(1200)), nil),
		}},
		{at(ms(1550)), []Event{
			ev(sg, Retrying, at(ms(1500)), func(e *Event) {
				e.Attempt, e.Err = 1, errors.New("throttled: rate exceeded")
			}),
			ev(subnet, Done, at(ms(1550)), func(e *Event) { e.Elapsed, e.ID = ms(350), "subnet-1002" }),
		}},
		{at(ms(4200)), []Event{
			ev(sg, Done, at(ms(3250)), func(e *Event) { e.Elapsed, e.ID = ms(2050), "sg-1003" }),
			ev(vm, Failed, at(ms(4200)), func(e *Event) {
				e.Elapsed, e.Err = ms(3000), errors.New("quota exceeded:\n\tvcpu limit 8")
			}),
			ev(lb, Skipped, at(ms(4200)), func(e *Event) { e.Err = errors.New(`dependency "web" failed`) }),
			ev(bucket, Started, at(ms(4200)), nil),
		}},
		{at(ms(68500)), []Event{
			ev(bucket, Done, at(ms(68500)), func(e *Event) { e.Elapsed = ms(64300) }),
		}},
	}
}

// fakeClock is a settable clock safe for concurrent use.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}
