package hetzner

import (
	"context"
	"fmt"
	"maps"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/kyku/action/internal/provider"
)

// api is how the provider reaches one kind of Hetzner object T (network,
// firewall, SSH key, server, load balancer): what every kind does the same
// way — get by ID, find by name, create idempotently by name, relabel,
// delete — written once over the few calls that differ. Each kind's file
// builds its api (Provider.networks, .firewalls, …).
type api[T any] struct {
	p    *Provider
	what string // "network", "ssh key", …: in request names and errors
	// clash explains a uniqueness_error from a create when no object has
	// the name ("": another attempt made it and it is gone again).
	clash string

	get     func(ctx context.Context, id int64) (*T, *hcloud.Response, error)
	list    func(ctx context.Context, name, selector string) ([]*T, *hcloud.Response, error)
	labels  func(o *T) map[string]string
	relabel func(ctx context.Context, o *T, labels map[string]string) (*T, *hcloud.Response, error)
	// rename gives o a new name and labels in one update.
	rename func(ctx context.Context, o *T, name string, labels map[string]string) (*T, *hcloud.Response, error)
	// del deletes o and returns the action doing it, if any.
	del func(ctx context.Context, o *T) (*hcloud.Action, *hcloud.Response, error)
	// busy, when set, judges an error of del: o's users left a moment ago
	// (retry), or one still uses it (fail now, saying which).
	busy func(ctx context.Context, o *T, err error) (again bool, final error)
	// object reports o in Kyku's vocabulary.
	object func(ctx context.Context, o *T) (provider.Object, error)
}

// byID reads object id; provider.ErrNotFound when there is none.
func (a api[T]) byID(ctx context.Context, id int64) (*T, error) {
	var o *T
	err := a.p.call(ctx, "get "+a.what, func(ctx context.Context) (r *hcloud.Response, err error) {
		o, r, err = a.get(ctx, id)
		return r, err
	})
	if err != nil {
		return nil, err
	}
	if o == nil {
		return nil, provider.NotFound(fmt.Sprintf("%s %d", a.what, id))
	}
	return o, nil
}

// byName returns the object named name (and matching selector, if any),
// or nil when there is none.
func (a api[T]) byName(ctx context.Context, name, selector string) (*T, error) {
	var os []*T
	err := a.p.call(ctx, "list "+a.what+"s", func(ctx context.Context) (r *hcloud.Response, err error) {
		os, r, err = a.list(ctx, name, selector)
		return r, err
	})
	if err != nil || len(os) == 0 {
		return nil, err
	}
	return os[0], nil
}

// read reports the object of provider ID id (a non-numeric ID is not
// found).
func (a api[T]) read(ctx context.Context, id string) (provider.Object, error) {
	o, err := a.byProviderID(ctx, id)
	if err != nil {
		return provider.Object{}, err
	}
	return a.object(ctx, o)
}

func (a api[T]) byProviderID(ctx context.Context, id string) (*T, error) {
	n, err := parseID(id)
	if err != nil {
		return nil, err
	}
	return a.byID(ctx, n)
}

// lookup reports the Kyku-managed object named name; not found when there
// is none (someone else's object of that name is none).
func (a api[T]) lookup(ctx context.Context, name string) (provider.Object, error) {
	o, err := a.byName(ctx, name, labelManaged+"=true")
	if err != nil {
		return provider.Object{}, err
	}
	if o == nil {
		return provider.Object{}, provider.NotFound(a.what + " " + name)
	}
	return a.object(ctx, o)
}

// ensure returns the object named name, made by create (the object and
// the actions it started, which ensure waits for) when there is none. A
// uniqueness_error from create means an earlier attempt whose answer was
// lost made it: it is looked up again. An object of that name not managed
// by Kyku is refused, never adopted.
func (a api[T]) ensure(ctx context.Context, name string, create func(ctx context.Context) (*T, []*hcloud.Action, *hcloud.Response, error)) (*T, error) {
	o, err := a.byName(ctx, name, "")
	if err != nil {
		return nil, err
	}
	if o == nil {
		var actions []*hcloud.Action
		err = a.p.call(ctx, "create "+a.what, func(ctx context.Context) (r *hcloud.Response, err error) {
			o, actions, r, err = create(ctx)
			return r, err
		})
		switch {
		case isCode(err, hcloud.ErrorCodeUniquenessError):
			if o, err = a.byName(ctx, name, ""); err == nil && o == nil {
				err = fmt.Errorf("create %s %q: uniqueness_error, yet no %s has that name", a.what, name, a.what)
				if a.clash != "" {
					err = fmt.Errorf("%s", a.clash)
				}
			}
		case err == nil:
			err = a.p.wait(ctx, actions...)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := managed(a.what, name, a.labels(o)); err != nil {
		return nil, err
	}
	return o, nil
}

// label sets o's labels to want unless they are so already, and returns
// the object as the API answers.
func (a api[T]) label(ctx context.Context, o *T, want map[string]string) (*T, error) {
	if maps.Equal(want, a.labels(o)) {
		return o, nil
	}
	var out *T
	err := a.p.call(ctx, "label "+a.what, func(ctx context.Context) (r *hcloud.Response, err error) {
		out, r, err = a.relabel(ctx, o, want)
		return r, err
	})
	return out, err
}

// setLabels writes object id's labels as fn computes them from the
// current ones; writers in this process take turns (a network's subnets
// and a server's target groups keep their bookkeeping on it).
func (a api[T]) setLabels(ctx context.Context, id int64, fn func(have map[string]string) map[string]string) (*T, error) {
	mu := a.p.mutex(fmt.Sprintf("labels/%s/%d", a.what, id))
	mu.Lock()
	defer mu.Unlock()
	o, err := a.byID(ctx, id)
	if err != nil {
		return nil, err
	}
	return a.label(ctx, o, fn(a.labels(o)))
}

// setName renames object id to name and writes its labels as fn computes
// them from the current ones, in one update (taking turns with setLabels).
func (a api[T]) setName(ctx context.Context, id int64, name string, fn func(have map[string]string) map[string]string) error {
	mu := a.p.mutex(fmt.Sprintf("labels/%s/%d", a.what, id))
	mu.Lock()
	defer mu.Unlock()
	o, err := a.byID(ctx, id)
	if err != nil {
		return err
	}
	return a.p.call(ctx, "rename "+a.what, func(ctx context.Context) (r *hcloud.Response, err error) {
		_, r, err = a.rename(ctx, o, name, fn(a.labels(o)))
		return r, err
	})
}

// remove deletes the object of provider ID id and waits for the action
// deleting it.
func (a api[T]) remove(ctx context.Context, id string) error {
	o, err := a.byProviderID(ctx, id)
	if err != nil {
		return err
	}
	var chk check
	if a.busy != nil {
		chk = func(ctx context.Context, err error) (bool, error) { return a.busy(ctx, o, err) }
	}
	var action *hcloud.Action
	err = a.p.callChecked(ctx, "delete "+a.what, chk, func(ctx context.Context) (r *hcloud.Response, err error) {
		action, r, err = a.del(ctx, o)
		return r, err
	})
	if err != nil {
		return err
	}
	return a.p.wait(ctx, action)
}

// act sends one request that starts actions and waits until they end. An
// error with one of the codes done means a retry whose first answer was
// lost found what it asked for in place: no error.
func (p *Provider) act(ctx context.Context, op string, fn func(ctx context.Context) ([]*hcloud.Action, *hcloud.Response, error), done ...hcloud.ErrorCode) error {
	return p.actChecked(ctx, op, nil, fn, done...)
}

// actChecked is act with chk consulted first about every error.
func (p *Provider) actChecked(ctx context.Context, op string, chk check, fn func(ctx context.Context) ([]*hcloud.Action, *hcloud.Response, error), done ...hcloud.ErrorCode) error {
	var actions []*hcloud.Action
	err := p.callChecked(ctx, op, chk, func(ctx context.Context) (r *hcloud.Response, err error) {
		actions, r, err = fn(ctx)
		return r, err
	})
	if err == nil {
		return p.wait(ctx, actions...)
	}
	for _, code := range done {
		if isCode(err, code) {
			return nil
		}
	}
	return err
}

// one is the answer of a request that starts one action, as act takes it.
func one(a *hcloud.Action, r *hcloud.Response, err error) ([]*hcloud.Action, *hcloud.Response, error) {
	return []*hcloud.Action{a}, r, err
}
