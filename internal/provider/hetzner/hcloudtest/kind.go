package hcloudtest

import (
	"fmt"
	"net/http"
	"sort"
)

// kind is one kind of object the fake holds (networks, firewalls, SSH
// keys, servers, load balancers). What the API does the same way for all
// of them is written once here: the listing with its name and
// label_selector filters and pagination, get by ID, rename and relabel
// (PUT), delete, an action on one object, and names unique per project.
// Each kind's file fills in what differs.
type kind[T any] struct {
	c      *Cloud
	what   string // "network", "ssh_key": the JSON key of one, in not_found and action resources
	plural string // "networks": the path, and the JSON key of a listing
	taken  string // the uniqueness_error message for a name in use
	all    func() map[int64]*T
	id     func(o *T) int64
	name   func(o *T) *string
	labels func(o *T) *map[string]string
	wire   func(o *T) any

	// Optional.
	match   func(r *http.Request, o *T) bool // further list filters (SSH keys by fingerprint)
	observe func(o *T)                       // runs on every read of one (servers boot)
	rename  func(name string) *apiError      // validates a new name (servers: a hostname)
	remove  func(o *T) (int, any, *apiError) // answers DELETE (nil: the object goes, 204)
}

// routes registers GET (list and one), PUT and DELETE.
func (k *kind[T]) routes() {
	path := "/" + k.plural
	k.c.handle("GET "+path, k.list)
	k.c.handle("GET "+path+"/{id}", func(r *http.Request, _ []byte) (int, any, *apiError) {
		o, e := k.byPath(r)
		if e != nil {
			return 0, nil, e
		}
		if k.observe != nil {
			k.observe(o)
		}
		return 200, k.answer(o), nil
	})
	k.c.handle("PUT "+path+"/{id}", k.update)
	k.c.handle("DELETE "+path+"/{id}", func(r *http.Request, _ []byte) (int, any, *apiError) {
		o, e := k.byPath(r)
		if e != nil {
			return 0, nil, e
		}
		if k.remove != nil {
			return k.remove(o)
		}
		delete(k.all(), k.id(o))
		return 204, nil, nil
	})
}

// byPath is the object the {id} of the path names.
func (k *kind[T]) byPath(r *http.Request) (*T, *apiError) {
	id, e := pathID(r)
	if e != nil {
		return nil, e
	}
	o := k.all()[id]
	if o == nil {
		return nil, notFound(k.what, id)
	}
	return o, nil
}

// answer wraps one object as the API answers it: {"network": …}.
func (k *kind[T]) answer(o *T) map[string]any { return map[string]any{k.what: k.wire(o)} }

func (k *kind[T]) ref(o *T) ref { return ref{k.id(o), k.what} }

// unique refuses name when another object of the kind (not except) has it.
func (k *kind[T]) unique(name string, except int64) *apiError {
	for id, o := range k.all() {
		if id != except && *k.name(o) == name {
			return fail("uniqueness_error", "%s", k.taken)
		}
	}
	return nil
}

// list answers the listing: filtered by name, label_selector (and match),
// sorted by ID, one page of it.
func (k *kind[T]) list(r *http.Request, _ []byte) (int, any, *apiError) {
	q := r.URL.Query()
	sel, err := parseSelector(q.Get("label_selector"))
	if err != nil {
		return 0, nil, invalid("label_selector", "%v", err)
	}
	m := k.all()
	ids := make([]int64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var items []*T
	for _, id := range ids {
		o := m[id]
		if n := q.Get("name"); n != "" && *k.name(o) != n {
			continue
		}
		if !sel.matches(*k.labels(o)) || (k.match != nil && !k.match(r, o)) {
			continue
		}
		items = append(items, o)
	}
	pg, meta, e := page(r, items)
	if e != nil {
		return 0, nil, e
	}
	out := make([]any, 0, len(pg))
	for _, o := range pg {
		if k.observe != nil {
			k.observe(o)
		}
		out = append(out, k.wire(o))
	}
	return 200, map[string]any{k.plural: out, "meta": meta}, nil
}

// update answers PUT: a new name (unique) and labels (valid).
func (k *kind[T]) update(r *http.Request, body []byte) (int, any, *apiError) {
	o, e := k.byPath(r)
	if e != nil {
		return 0, nil, e
	}
	var in struct {
		Name   *string            `json:"name"`
		Labels *map[string]string `json:"labels"`
	}
	if e := decode(body, &in); e != nil {
		return 0, nil, e
	}
	if in.Name != nil && *in.Name != "" {
		if k.rename != nil {
			if e := k.rename(*in.Name); e != nil {
				return 0, nil, e
			}
		}
		if e := k.unique(*in.Name, k.id(o)); e != nil {
			return 0, nil, e
		}
		*k.name(o) = *in.Name
	}
	if in.Labels != nil {
		if e := checkLabels(*in.Labels); e != nil {
			return 0, nil, e
		}
		*k.labels(o) = copyLabels(*in.Labels)
	}
	return 200, k.answer(o), nil
}

// action answers POST …/{id}/actions/…: check decodes and validates the
// body against the object and returns the effect to run when the action
// finishes and the resources it locks besides the object.
func (k *kind[T]) action(command string, check func(o *T, body []byte) (apply func() *apiError, also []ref, e *apiError)) handlerFunc {
	return func(r *http.Request, body []byte) (int, any, *apiError) {
		o, e := k.byPath(r)
		if e != nil {
			return 0, nil, e
		}
		apply, also, e := check(o, body)
		if e != nil {
			return 0, nil, e
		}
		a, e := k.c.start(command, apply, append([]ref{k.ref(o)}, also...)...)
		if e != nil {
			return 0, nil, e
		}
		return 201, one(a), nil
	}
}

// deleteAction answers DELETE with an action (200): the object goes, and
// then cleanup runs (when set), once the action finishes.
func (k *kind[T]) deleteAction(command string, o *T, cleanup func()) (int, any, *apiError) {
	a, e := k.c.start(command, func() *apiError {
		delete(k.all(), k.id(o))
		if cleanup != nil {
			cleanup()
		}
		return nil
	}, k.ref(o))
	if e != nil {
		return 0, nil, e
	}
	return 200, one(a), nil
}

// inventory lists the objects as "what id name".
func (k *kind[T]) inventory() []string {
	var out []string
	for id, o := range k.all() {
		out = append(out, fmt.Sprintf("%s %d %s", k.what, id, *k.name(o)))
	}
	return out
}
