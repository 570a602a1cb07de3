package hcloudtest

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// BasePath is where the fake mounts the API, like /v1 on the real host.
const BasePath = "/hcloud/v1"

// Options configure a fake cloud. Zero fields take the defaults.
type Options struct {
	Token       string           // bearer token every request must carry (default "test-token")
	Now         func() time.Time // clock for the rate limit and timestamps (default time.Now)
	ActionPolls int              // polls an action stays "running" (default 2)
	BootPolls   int              // reads a server stays "starting" after power-on (default 2)
	RateLimit   int              // requests per hour (default 3600)
}

// State is every object the fake holds, keyed by ID. Edit hands it out.
type State struct {
	Networks      map[int64]*Network
	Firewalls     map[int64]*Firewall
	SSHKeys       map[int64]*SSHKey
	Servers       map[int64]*Server
	LoadBalancers map[int64]*LoadBalancer
}

// Cloud is a fake Hetzner Cloud project.
type Cloud struct {
	srv  *httptest.Server
	mux  *http.ServeMux
	opts Options

	mu sync.Mutex
	st State
	// The kinds of object, over st.
	networks  *kind[Network]
	firewalls *kind[Firewall]
	sshKeys   *kind[SSHKey]
	servers   *kind[Server]
	lbs       *kind[LoadBalancer]
	nextID    int64
	nextIP    int
	actions   map[int64]*action
	busy      map[string]int64 // "server/12" → running action ID
	calls     map[string]int   // route ("GET /servers") → requests
	faults    map[string][]string
	after     map[string][]string // faults answered after the request took effect
	limited   int                 // 429 answers given
	tokens    float64             // rate-limit bucket
	refill    time.Time
	// leaving are servers deleted a moment ago that their firewalls still
	// list as applied until due (the API lags; see FirewallLag).
	leaving []leaving
}

// leaving is a deleted server a firewall still lists.
type leaving struct {
	firewall, server int64
	due              time.Time
}

// Lags of the real API the fake reproduces (the provider must retry
// them; terraform-provider-hcloud does too).
const (
	// FirewallLag is how long a firewall still lists a server deleted a
	// moment ago as applied, deleting the firewall meanwhile answering
	// resource_in_use (terraform-provider-hcloud retries that delete:
	// "Removing resources from the firewall can sometimes take longer").
	FirewallLag = 3 * time.Second
	// SubnetLag is how long a subnet added a moment ago answers
	// no_subnet_available to a server or load balancer attaching in it
	// (terraform-provider-hcloud retries attach_to_network on it).
	SubnetLag = 10 * time.Second
)

// New starts a fake cloud; Close it when done.
func New(opts Options) *Cloud {
	if opts.Token == "" {
		opts.Token = "test-token"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ActionPolls <= 0 {
		opts.ActionPolls = 2
	}
	if opts.BootPolls <= 0 {
		opts.BootPolls = 2
	}
	if opts.RateLimit <= 0 {
		opts.RateLimit = 3600
	}
	c := &Cloud{
		opts: opts,
		st: State{
			Networks: map[int64]*Network{}, Firewalls: map[int64]*Firewall{}, SSHKeys: map[int64]*SSHKey{},
			Servers: map[int64]*Server{}, LoadBalancers: map[int64]*LoadBalancer{},
		},
		nextID:  4711000,
		actions: map[int64]*action{},
		busy:    map[string]int64{},
		calls:   map[string]int{},
		faults:  map[string][]string{},
		after:   map[string][]string{},
		tokens:  float64(opts.RateLimit),
		refill:  opts.Now(),
	}
	c.networks, c.firewalls, c.sshKeys, c.servers, c.lbs = c.networkKind(), c.firewallKind(), c.sshKeyKind(), c.serverKind(), c.lbKind()
	c.mux = http.NewServeMux()
	c.routes()
	c.srv = httptest.NewServer(http.HandlerFunc(c.serve))
	return c
}

// URL is the API endpoint to give the client (it includes BasePath).
func (c *Cloud) URL() string { return c.srv.URL + BasePath }

// Token is the bearer token the fake accepts.
func (c *Cloud) Token() string { return c.opts.Token }

// Close stops the server.
func (c *Cloud) Close() { c.srv.Close() }

// Fail makes the next n requests to route (e.g. "POST /servers",
// "GET /networks/{id}") answer with the documented status of code
// ("locked", "conflict", "rate_limit_exceeded", "server_error", …).
func (c *Cloud) Fail(route, code string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for range n {
		c.faults[route] = append(c.faults[route], code)
	}
}

// FailAfter makes the next n requests to route take effect and then
// answer with code, as when a response is lost (a 502 from a proxy after
// the API did the work): a client that retries must find what it made.
func (c *Cloud) FailAfter(route, code string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for range n {
		c.after[route] = append(c.after[route], code)
	}
}

// Limited returns how many requests were answered 429 rate_limit_exceeded.
func (c *Cloud) Limited() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.limited
}

// SetRateLimit sets the bucket: limit requests per hour, remaining now.
func (c *Cloud) SetRateLimit(limit, remaining int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opts.RateLimit = limit
	c.tokens = float64(remaining)
	c.refill = c.opts.Now()
}

// SetActionPolls sets how many polls a new action stays running.
func (c *Cloud) SetActionPolls(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opts.ActionPolls = max(n, 1)
}

// SetBootPolls sets how many reads a server stays "starting".
func (c *Cloud) SetBootPolls(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opts.BootPolls = max(n, 1)
}

// Calls returns how many requests route received ("GET /servers");
// with route "" it returns the total.
func (c *Cloud) Calls(route string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if route != "" {
		return c.calls[route]
	}
	n := 0
	for _, v := range c.calls {
		n += v
	}
	return n
}

// ResetCalls zeroes the request counters.
func (c *Cloud) ResetCalls() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = map[string]int{}
}

// Edit runs fn on the state under the lock (drift behind the client's back).
func (c *Cloud) Edit(fn func(st *State)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fn(&c.st)
}

// Inventory lists every object left, as "type id name", sorted.
func (c *Cloud) Inventory() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := slices.Concat(c.networks.inventory(), c.firewalls.inventory(), c.sshKeys.inventory(), c.servers.inventory(), c.lbs.inventory())
	sort.Strings(out)
	return out
}

// apiError is an error answer.
type apiError struct {
	status  int
	code    string
	message string
	details any
}

// statusOf is the documented HTTP status of each error code.
var statusOf = map[string]int{
	"invalid_input": 400, "json_error": 400, "unauthorized": 401, "forbidden": 403, "not_found": 404,
	"conflict": 409, "uniqueness_error": 409, "locked": 423, "resource_in_use": 422,
	"server_not_stopped": 422, "source_port_already_used": 422, "target_already_defined": 422,
	"firewall_already_applied": 422, "server_not_attached_to_network": 422, "no_subnet_available": 422,
	"ip_not_available": 422, "firewall_resource_not_found": 422, "invalid_server_type": 422,
	"server_already_attached": 422, "load_balancer_already_attached": 422, "load_balancer_not_attached_to_network": 422, "protected": 403, "rate_limit_exceeded": 429, "resource_limit_exceeded": 403,
	"server_error": 500, "bad_gateway": 502, "service_error": 503, "unavailable": 503, "timeout": 504,
}

func fail(code, format string, args ...any) *apiError {
	st, ok := statusOf[code]
	if !ok {
		st = 400
	}
	return &apiError{status: st, code: code, message: fmt.Sprintf(format, args...)}
}

func invalid(field, format string, args ...any) *apiError {
	e := fail("invalid_input", "invalid input in field '%s'", field)
	e.details = map[string]any{"fields": []any{map[string]any{"name": field, "messages": []string{fmt.Sprintf(format, args...)}}}}
	return e
}

func notFound(what string, id int64) *apiError {
	return fail("not_found", "%s with ID '%d' not found", what, id)
}

// handlerFunc answers one route under c.mu; it returns the status and
// body to send, or an error.
type handlerFunc func(r *http.Request, body []byte) (int, any, *apiError)

func (c *Cloud) handle(pattern string, h handlerFunc) {
	method, path, _ := strings.Cut(pattern, " ")
	c.mux.HandleFunc(method+" "+BasePath+path, func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			writeError(w, fail("json_error", "read body: %v", err))
			return
		}
		c.mu.Lock()
		status, out, e := h(r, body)
		c.mu.Unlock()
		if e != nil {
			writeError(w, e)
			return
		}
		if out == nil {
			w.WriteHeader(status)
			return
		}
		writeJSON(w, status, out)
	})
}

// serve checks auth, rate limit and injected faults, counts the request by
// route, and dispatches it.
func (c *Cloud) serve(w http.ResponseWriter, r *http.Request) {
	_, pattern := c.mux.Handler(r)
	route := ""
	if method, path, ok := strings.Cut(pattern, " "); ok {
		route = method + " " + strings.TrimPrefix(path, BasePath)
	}
	c.mu.Lock()
	c.background()
	c.calls[route]++
	limited, limit, remaining, reset := c.take()
	var injected, afterwards string
	if q := c.faults[route]; len(q) > 0 && !limited {
		injected, c.faults[route] = q[0], q[1:]
	}
	if q := c.after[route]; len(q) > 0 && !limited && injected == "" {
		afterwards, c.after[route] = q[0], q[1:]
	}
	if limited {
		c.limited++
	}
	c.mu.Unlock()

	h := w.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("RateLimit-Reset", strconv.FormatInt(reset, 10))
	switch {
	case r.Header.Get("Authorization") != "Bearer "+c.opts.Token:
		writeError(w, fail("unauthorized", "unable to authenticate"))
	case limited:
		writeError(w, fail("rate_limit_exceeded", "limit of %d requests per hour reached", limit))
	case injected != "":
		writeError(w, fail(injected, "injected %s", injected))
	case route == "":
		writeError(w, fail("not_found", "no route %s %s", r.Method, r.URL.Path))
	case afterwards != "":
		c.mux.ServeHTTP(httptest.NewRecorder(), r)
		writeError(w, fail(afterwards, "injected %s after the request took effect", afterwards))
	default:
		c.mux.ServeHTTP(w, r)
	}
}

// take refills the bucket (limit per hour, one token at a time) and takes
// one token; it reports whether the request is limited and the header
// values.
func (c *Cloud) take() (limited bool, limit, remaining int, reset int64) {
	now := c.opts.Now()
	limit = c.opts.RateLimit
	per := time.Hour / time.Duration(limit)
	if el := now.Sub(c.refill); el > 0 {
		c.tokens = math.Min(float64(limit), c.tokens+float64(el)/float64(per))
	}
	c.refill = now
	if c.tokens < 1 {
		limited = true
	} else {
		c.tokens--
	}
	missing := float64(limit) - c.tokens
	full := now.Add(time.Duration(missing * float64(per)))
	return limited, limit, int(c.tokens), int64(math.Ceil(float64(full.UnixNano()) / 1e9))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, e *apiError) {
	body := map[string]any{"code": e.code, "message": e.message, "details": e.details}
	writeJSON(w, e.status, map[string]any{"error": body})
}

// decode parses a JSON request body strictly into v.
func decode(body []byte, v any) *apiError {
	if err := json.Unmarshal(body, v); err != nil {
		return fail("json_error", "invalid JSON: %v", err)
	}
	return nil
}

func pathID(r *http.Request) (int64, *apiError) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, invalid("id", "must be a positive integer, got %q", r.PathValue("id"))
	}
	return id, nil
}

func (c *Cloud) id() int64 {
	c.nextID++
	return c.nextID
}

// publicIP hands out addresses from the documentation range.
func (c *Cloud) publicIP() string {
	c.nextIP++
	return fmt.Sprintf("203.0.%d.%d", 113+c.nextIP/250, c.nextIP%250+1)
}

// page cuts a listing by page and per_page and returns the meta block.
func page[T any](r *http.Request, items []T) ([]T, map[string]any, *apiError) {
	q := r.URL.Query()
	pg, per := 1, 25
	if s := q.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, nil, invalid("page", "must be a positive integer")
		}
		pg = n
	}
	if s := q.Get("per_page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 50 {
			return nil, nil, invalid("per_page", "must be between 1 and 50")
		}
		per = n
	}
	last := max(1, (len(items)+per-1)/per)
	var next, prev any
	if pg < last {
		next = pg + 1
	}
	if pg > 1 {
		prev = pg - 1
	}
	lo := min((pg-1)*per, len(items))
	hi := min(lo+per, len(items))
	meta := map[string]any{"pagination": map[string]any{
		"page": pg, "per_page": per, "previous_page": prev, "next_page": next, "last_page": last, "total_entries": len(items),
	}}
	return items[lo:hi], meta, nil
}

func copyLabels(l map[string]string) map[string]string {
	out := make(map[string]string, len(l))
	for k, v := range l {
		out[k] = v
	}
	return out
}

func (c *Cloud) timestamp() string { return c.opts.Now().UTC().Format(time.RFC3339) }

// created is an object's creation time, or now for objects a test added
// through Edit without one.
func (c *Cloud) created(s string) string {
	if s == "" {
		return c.timestamp()
	}
	return s
}
