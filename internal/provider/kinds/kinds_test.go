package kinds_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/kinds"
)

// fake is a Kind whose calls are function fields; a nil field answers
// not found.
type fake struct {
	create func(ctx context.Context, r provider.Resource) (provider.Object, error)
	read   func(ctx context.Context, id string) (provider.Object, error)
	update func(ctx context.Context, id string, r provider.Resource, cur provider.Object) (provider.Object, error)
	calls  []string
	mu     sync.Mutex
}

func (f *fake) log(call string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
}

func (f *fake) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	f.log("create " + r.CloudName)
	return f.create(ctx, r)
}

func (f *fake) Read(ctx context.Context, id string) (provider.Object, error) {
	f.log("read " + id)
	if f.read == nil {
		return provider.Object{}, provider.NotFound("thing " + id)
	}
	return f.read(ctx, id)
}

func (f *fake) Update(ctx context.Context, id string, r provider.Resource, cur provider.Object) (provider.Object, error) {
	f.log("update " + id)
	return f.update(ctx, id, r, cur)
}

func (f *fake) Delete(_ context.Context, id string) error {
	f.log("delete " + id)
	return provider.NotFound("thing " + id)
}

func (f *fake) Lookup(_ context.Context, name string) (provider.Object, error) {
	f.log("lookup " + name)
	return provider.Object{}, provider.NotFound("thing " + name)
}

func vpc(name string, props map[string]any) provider.Resource {
	return provider.Resource{Name: name, Type: "Vpc", CloudName: "kyku0001-" + name, Prefix: "kyku0001", Properties: props}
}

func TestUnknownAndRefusedTypes(t *testing.T) {
	s := kinds.New("hetzner", map[string]kinds.Kind{"Vpc": &fake{}})
	s.Refused = map[string]string{"Database": "hetzner has no managed databases"}
	ctx := t.Context()
	for _, tc := range []struct {
		typ, want string
	}{
		{"Database", "hetzner has no managed databases (type Database)"},
		{"Bucket", `hetzner provider has no resource type "Bucket"`},
	} {
		_, rerr := s.Read(ctx, tc.typ, "1")
		_, cerr := s.Create(ctx, provider.Resource{Type: tc.typ, Name: "x"})
		derr := s.Delete(ctx, tc.typ, "1")
		for _, err := range []error{rerr, cerr, derr} {
			if err == nil || err.Error() != tc.want {
				t.Errorf("%s: err = %v, want %q", tc.typ, err, tc.want)
			}
		}
	}
	if _, err := s.Kind("Vpc"); err != nil {
		t.Errorf("Kind(Vpc) = %v", err)
	}
}

func TestCreate(t *testing.T) {
	ctx := t.Context()
	k := &fake{create: func(_ context.Context, r provider.Resource) (provider.Object, error) {
		if r.Name == "bad" {
			return provider.Object{}, errors.New("cidr \"x\" is not a network")
		}
		return provider.NewObject("4711", r.CloudName, r.Properties, nil), nil
	}}
	s := kinds.New("aws", map[string]kinds.Kind{"Vpc": k})
	s.CheckName = func(typ, name string) error {
		if strings.Contains(name, "_") {
			return fmt.Errorf("%s name %q may not hold '_'", typ, name)
		}
		return nil
	}
	if obj, err := s.Create(ctx, vpc("net", nil)); err != nil || obj.ID != "4711" {
		t.Errorf("create: %v, %v", obj, err)
	}
	if _, err := s.Create(ctx, vpc("bad", nil)); err == nil || err.Error() != `create Vpc "bad": cidr "x" is not a network` {
		t.Errorf("a failed create: %v; want it wrapped with the resource", err)
	}
	if _, err := s.Create(ctx, vpc("my_net", nil)); err == nil || err.Error() != `create Vpc "my_net": Vpc name "kyku0001-my_net" may not hold '_'` {
		t.Errorf("a refused name: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Create(cancelled, vpc("late", nil)); !errors.Is(err, context.Canceled) {
		t.Errorf("create on a cancelled context: %v", err)
	}
	// The refused name and the cancelled create never reached the Kind.
	if d := cmp.Diff([]string{"create kyku0001-net", "create kyku0001-bad"}, k.calls); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
}

// Creates of one cloud name take turns; creates of different names run
// side by side.
func TestCreatesOfOneNameTakeTurns(t *testing.T) {
	var inside, most atomic.Int32
	var wait atomic.Int64 // how long a create waits for a second one inside
	both := make(chan struct{})
	var once sync.Once
	k := &fake{create: func(_ context.Context, r provider.Resource) (provider.Object, error) {
		n := inside.Add(1)
		defer inside.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		if n == 2 {
			once.Do(func() { close(both) })
		}
		select {
		case <-both:
		case <-time.After(time.Duration(wait.Load())):
		}
		return provider.NewObject("1", r.CloudName, nil, nil), nil
	}}
	s := kinds.New("sim", map[string]kinds.Kind{"Vpc": k})
	run := func(patience time.Duration, names ...string) int32 {
		most.Store(0)
		wait.Store(int64(patience))
		var wg sync.WaitGroup
		for _, n := range names {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := s.Create(t.Context(), vpc(n, nil)); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		return most.Load()
	}
	if got := run(5*time.Millisecond, "a", "a", "a", "a"); got != 1 {
		t.Errorf("%d creates of one name ran at once; want 1", got)
	}
	// Different names: the first waits (up to a minute, under any load)
	// until the second is inside too.
	if got := run(time.Minute, "b", "c"); got != 2 {
		t.Errorf("creates of two names: at most %d at once; want 2", got)
	}
}

func TestUpdate(t *testing.T) {
	ctx := t.Context()
	k := &fake{
		read: func(_ context.Context, id string) (provider.Object, error) {
			return provider.NewObject(id, "kyku0001-net", map[string]any{"cidr": "10.0.0.0/16", "distributeAcrossAzs": float64(0)}, nil), nil
		},
		update: func(_ context.Context, id string, r provider.Resource, cur provider.Object) (provider.Object, error) {
			if cur.Properties["cidr"] != "10.0.0.0/16" {
				return provider.Object{}, errors.New("update got no current object")
			}
			return provider.NewObject(id, r.CloudName, r.Properties, nil), nil
		},
	}
	s := kinds.New("sim", map[string]kinds.Kind{"Vpc": k})
	s.Fixed = map[string]map[string]string{"Vpc": {"cidr": "the API sets it only at create"}}
	if _, err := s.Update(ctx, "7", vpc("net", map[string]any{"cidr": "10.1.0.0/16"})); err == nil ||
		err.Error() != `update Vpc "net": property cidr cannot change in place: the API sets it only at create (replace the resource)` {
		t.Errorf("an immutable change: %v", err)
	}
	obj, err := s.Update(ctx, "7", vpc("net", map[string]any{"cidr": "10.0.0.0/16", "distributeAcrossAzs": float64(2)}))
	if err != nil || obj.Properties["distributeAcrossAzs"] != float64(2) {
		t.Errorf("a mutable change: %v, %v", obj, err)
	}
	if d := cmp.Diff([]string{"read 7", "read 7", "update 7"}, k.calls); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
	k.read = nil
	if _, err := s.Update(ctx, "8", vpc("net", nil)); !errors.Is(err, provider.ErrNotFound) || err.Error() != `update Vpc "net": thing 8: not found` {
		t.Errorf("update of a gone object: %v", err)
	}
}

func TestReadDeleteLookupWrapNotFound(t *testing.T) {
	ctx := t.Context()
	k := &fake{}
	s := kinds.New("aws", map[string]kinds.Kind{"Vpc": k})
	s.CheckName = func(_, name string) error {
		if len(name) > 10 {
			return errors.New("too long")
		}
		return nil
	}
	_, rerr := s.Read(ctx, "Vpc", "vpc-1")
	derr := s.Delete(ctx, "Vpc", "vpc-1")
	_, lerr := s.Lookup(ctx, "Vpc", "net")
	_, long := s.Lookup(ctx, "Vpc", "a-very-long-name")
	for _, tc := range []struct {
		err  error
		want string
	}{
		{rerr, "read Vpc vpc-1: thing vpc-1: not found"},
		{derr, "delete Vpc vpc-1: thing vpc-1: not found"},
		{lerr, `lookup Vpc "net": thing net: not found`},
		{long, `lookup Vpc "a-very-long-name": no such name on aws (too long): not found`},
	} {
		if !errors.Is(tc.err, provider.ErrNotFound) || tc.err.Error() != tc.want {
			t.Errorf("err = %v, want %q wrapping ErrNotFound", tc.err, tc.want)
		}
	}
	if d := cmp.Diff([]string{"read vpc-1", "delete vpc-1", "lookup net"}, k.calls); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
}
