package hetzner_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/hetzner"
	"github.com/kyku/action/internal/provider/hetzner/hcloudtest"
)

func vpc(name string) provider.Resource {
	return res("Vpc", name, map[string]any{"cidr": "10.42.0.0/16", "distributeAcrossAzs": float64(0)})
}

func mustCreate(t *testing.T, p provider.Provider, r provider.Resource) provider.Object {
	t.Helper()
	obj, err := p.Create(t.Context(), r)
	if err != nil {
		t.Fatalf("Create %s %s: %v", r.Type, r.Name, err)
	}
	return obj
}

// TestRateLimitHonoursHeaders: with the bucket empty, the provider waits
// as long as RateLimit-Limit says one request takes to come back (here
// 360/h: 10 s), then paces every later request at that spacing instead of
// running into more 429s.
func TestRateLimitHonoursHeaders(t *testing.T) {
	e := setup(t)
	e.cloud.SetRateLimit(360, 0)
	const n = 5
	for i := range n {
		mustCreate(t, e.p, vpc(fmt.Sprintf("net-%d", i)))
	}
	calls := e.cloud.Calls("")
	if got := e.cloud.Limited(); got != 1 {
		t.Errorf("%d requests answered 429; want only the first (the rest paced by the headers)", got)
	}
	if len(e.clock.naps) == 0 || e.clock.naps[0] < 10*time.Second {
		t.Fatalf("first wait %v; want at least 10s (3600s / RateLimit-Limit 360)", e.clock.naps)
	}
	if min := time.Duration(calls-1) * 10 * time.Second; e.clock.Slept() < min {
		t.Errorf("slept %v over %d requests; want at least %v (one request per 10s)", e.clock.Slept(), calls, min)
	}
}

// TestRateLimitParallelWorkersQueue: parallel creates against an empty
// bucket each meet at most one 429, then queue on the shared pacer.
func TestRateLimitParallelWorkersQueue(t *testing.T) {
	e := setup(t)
	e.cloud.SetRateLimit(3600, 0)
	const workers = 6
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for i := range workers {
		wg.Go(func() {
			_, errs[i] = e.p.Create(t.Context(), res("SshKey", fmt.Sprintf("key-%d", i), map[string]any{"publicKey": publicKey(fmt.Sprint(i))}))
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := e.cloud.Limited(); got > workers {
		t.Errorf("%d answers were 429 for %d workers; want at most one each", got, workers)
	}
}

// TestRateLimitGivesUpTransient: a limit that never lifts ends in a
// TransientError carrying the header's wait, for the engine's retry.
func TestRateLimitGivesUpTransient(t *testing.T) {
	e := setup(t)
	obj := mustCreate(t, e.p, vpc("net"))
	e.cloud.Fail("GET /networks/{id}", "rate_limit_exceeded", 100)
	_, err := e.p.Read(t.Context(), "Vpc", obj.ID)
	var te *provider.TransientError
	if !errors.As(err, &te) {
		t.Fatalf("Read under a lasting 429: err = %v, want a TransientError", err)
	}
	if te.RetryAfter != time.Second {
		t.Errorf("RetryAfter = %v, want 1s (3600s / RateLimit-Limit 3600)", te.RetryAfter)
	}
	if got := e.cloud.Calls("GET /networks/{id}"); got != 8 {
		t.Errorf("GET /networks/{id} called %d times, want MaxAttempts (8)", got)
	}
}

// TestLockedAndServerErrorsRetried: locked, conflict and 5xx answers are
// retried with exponential backoff; a permanent error is not.
func TestLockedAndServerErrorsRetried(t *testing.T) {
	for _, code := range []string{"locked", "conflict", "server_error", "service_error", "bad_gateway"} {
		t.Run(code, func(t *testing.T) {
			e := setup(t)
			e.cloud.Fail("POST /networks", code, 3)
			mustCreate(t, e.p, vpc("net"))
			if got := e.p.Retries(); got != 3 {
				t.Errorf("Retries = %d, want 3", got)
			}
			if want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}; fmt.Sprint(e.clock.naps) != fmt.Sprint(want) {
				t.Errorf("waits %v, want %v", e.clock.naps, want)
			}
		})
	}
	t.Run("invalid_input", func(t *testing.T) {
		e := setup(t)
		e.cloud.Fail("POST /networks", "invalid_input", 1)
		_, err := e.p.Create(t.Context(), vpc("net"))
		if err == nil || provider.IsTransient(err) || e.p.Retries() != 0 {
			t.Errorf("invalid_input: err = %v, retries %d; want a permanent error, no retry", err, e.p.Retries())
		}
	})
}

// TestServerTakesSeveralPollsToRun: Create returns only once the server is
// running, however many reads the boot takes, and with its subnet IP.
func TestServerTakesSeveralPollsToRun(t *testing.T) {
	e := setup(t)
	e.cloud.SetActionPolls(4)
	e.cloud.SetBootPolls(7)
	ctx := t.Context()
	n := mustCreate(t, e.p, vpc("net"))
	zones, err := e.p.Zones(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sn := mustCreate(t, e.p, res("Subnet", "sn", map[string]any{"network": n.ID, "cidr": "10.42.7.0/24", "zone": zones[0], "public": true}))
	before := e.cloud.Calls("GET /servers/{id}")
	vm := mustCreate(t, e.p, res("Vm", "vm", map[string]any{"network": n.ID, "subnet": sn.ID, "image": "debian-12", "size": "small"}))
	// The boot ends after 7 reads or 7 seconds, whichever comes first:
	// polls back off, so the clock ends it.
	if reads := e.cloud.Calls("GET /servers/{id}") - before; reads < 2 {
		t.Errorf("the server was read %d times; it boots in 7 seconds, so Create returned before it ran", reads)
	}
	e.cloud.Edit(func(st *hcloudtest.State) {
		for _, s := range st.Servers {
			if s.Status != "running" {
				t.Errorf("server status %s after Create, want running", s.Status)
			}
		}
	})
	if ip, _ := vm.Outputs["privateIp"].(string); !strings.HasPrefix(ip, "10.42.7.") {
		t.Errorf("privateIp = %q, want an address of subnet 10.42.7.0/24", ip)
	}
	if ip, _ := vm.Outputs["publicIp"].(string); ip == "" {
		t.Errorf("publicIp empty; outputs %v", vm.Outputs)
	}
	if sn.ID != n.ID+"/10.42.7.0/24" {
		t.Errorf("subnet ID = %q, want <network ID>/<cidr>", sn.ID)
	}
}

// TestWaitIsBoundedAndCancellable: an action that never finishes ends the
// wait after MaxPolls (transient), and a cancelled context ends it at once.
func TestWaitIsBoundedAndCancellable(t *testing.T) {
	e := setup(t)
	e.cloud.SetActionPolls(1000)
	n := mustCreate(t, e.p, vpc("net"))
	r := res("Subnet", "sn", map[string]any{"network": n.ID, "cidr": "10.42.1.0/24", "zone": "eu-central"})
	_, err := e.p.Create(t.Context(), r)
	if !provider.IsTransient(err) || !strings.Contains(err.Error(), "still not done after 60 polls") {
		t.Errorf("endless action: err = %v, want a transient error after MaxPolls", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := e.p.Create(ctx, res("Subnet", "sn2", map[string]any{"network": n.ID, "cidr": "10.42.2.0/24", "zone": "eu-central"})); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}

// TestUniquenessErrorMeansFind: a create whose answer was lost is retried;
// the API's uniqueness_error then means "it exists": the provider finds
// it, and one network exists.
func TestUniquenessErrorMeansFind(t *testing.T) {
	e := setup(t)
	e.cloud.FailAfter("POST /networks", "bad_gateway", 1)
	obj := mustCreate(t, e.p, vpc("net"))
	if got := e.cloud.Calls("POST /networks"); got != 2 {
		t.Errorf("POST /networks called %d times, want 2 (lost answer, then uniqueness_error)", got)
	}
	if inv := e.cloud.Inventory(); len(inv) != 1 || !strings.Contains(inv[0], obj.ID) {
		t.Errorf("project holds %v, want the one network %s", inv, obj.ID)
	}
}

// TestForeignObjectNotAdopted: an object with the cloud name but without
// kyku-managed=true is someone else's: create refuses it, lookup (used to
// resolve stale IDs before a destroy) does not see it.
func TestForeignObjectNotAdopted(t *testing.T) {
	e := setup(t)
	e.cloud.Edit(func(st *hcloudtest.State) {
		st.Networks[1] = &hcloudtest.Network{ID: 1, Name: "kyku0001-net", IPRange: "10.42.0.0/16", Labels: map[string]string{}}
	})
	_, err := e.p.Create(t.Context(), vpc("net"))
	if err == nil || !strings.Contains(err.Error(), "not managed by Kyku") {
		t.Errorf("Create over a foreign network: err = %v, want a refusal", err)
	}
	if _, err := e.p.Lookup(t.Context(), "Vpc", "kyku0001-net"); !errors.Is(err, provider.ErrNotFound) {
		t.Errorf("Lookup of a foreign network: err = %v, want ErrNotFound", err)
	}
}

// TestSSHKeyFingerprintClash: Hetzner keeps one key per fingerprint; the
// second SshKey with the same public key gets a clear error.
func TestSSHKeyFingerprintClash(t *testing.T) {
	e := setup(t)
	key := publicKey("same")
	mustCreate(t, e.p, res("SshKey", "a", map[string]any{"publicKey": key}))
	_, err := e.p.Create(t.Context(), res("SshKey", "b", map[string]any{"publicKey": key}))
	if err == nil || !strings.Contains(err.Error(), "one SSH key per fingerprint") {
		t.Errorf("second key with the same public key: err = %v", err)
	}
}

func TestValidID(t *testing.T) {
	p := setup(t).p
	for _, tc := range []struct {
		typ, id string
		want    bool
	}{
		{"Vpc", "12224210", true}, {"Vm", "web-0", false}, {"Vm", "kyku0001-web-0", false}, {"Vm", "-4", false},
		{"Subnet", "12/10.0.1.0/24", true}, {"Subnet", "12", false}, {"Subnet", "main-subnet", false}, {"Subnet", "12/10.0.1.5/24", false},
		{"TargetGroup", "kyku-tg/kyku0001-web-tg", true}, {"TargetGroup", "web-tg", false}, {"TargetGroup", "42", false},
	} {
		if got := p.ValidID(tc.typ, tc.id); got != tc.want {
			t.Errorf("ValidID(%s, %q) = %v, want %v", tc.typ, tc.id, got, tc.want)
		}
	}
}

// TestStaleIDReadsAsGone: a non-numeric ID (a Kyku name from an early
// version) is not sent to the API; it reads as not found.
func TestStaleIDReadsAsGone(t *testing.T) {
	e := setup(t)
	if _, err := e.p.Read(t.Context(), "Vm", "web-0"); !errors.Is(err, provider.ErrNotFound) {
		t.Errorf("Read(Vm, web-0): err = %v, want ErrNotFound", err)
	}
	if n := e.cloud.Calls(""); n != 0 {
		t.Errorf("%d requests for a stale ID, want none", n)
	}
}

func TestNew(t *testing.T) {
	ctx := t.Context()
	env := func(token string) func(string) string {
		return func(k string) string {
			if k == "HCLOUD_TOKEN" {
				return token
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name     string
		settings map[string]string
		token    string
		want     string // error substring; "" for success
	}{
		{"ok", map[string]string{"location": "nbg1"}, "t0k", ""},
		{"no token", map[string]string{"location": "fsn1"}, "", "HCLOUD_TOKEN is not set"},
		{"loopback endpoint", map[string]string{"endpoint": "http://127.0.0.1:8080/v1"}, "t0k", ""},
		{"remote endpoint", map[string]string{"endpoint": "https://collector.example/v1"}, "t0k", "only a loopback address"},
		{"typo", map[string]string{"locaton": "fsn1"}, "t0k", "unknown provider setting locaton"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := hetzner.New(ctx, tc.settings, env(tc.token))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("New: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("New: err = %v, want %q", err, tc.want)
			case tc.want == "" && p.Name() != "hetzner":
				t.Errorf("Name = %q", p.Name())
			}
		})
	}
}

// TestUnauthorizedIsPermanent: a wrong token fails at once, without
// retries, and the token is in no error message.
func TestUnauthorizedIsPermanent(t *testing.T) {
	e := setup(t)
	p := hetzner.NewWithClient(hetzner.NewClient(e.cloud.URL(), "wrong-secret-token", nil), hetzner.Options{Now: e.clock.Now, Sleep: e.clock.Sleep})
	_, err := p.Zones(t.Context())
	if err == nil || provider.IsTransient(err) || p.Retries() != 0 {
		t.Fatalf("wrong token: err = %v, retries %d; want a permanent error", err, p.Retries())
	}
	if strings.Contains(err.Error(), "wrong-secret-token") {
		t.Errorf("error reveals the token: %v", err)
	}
}

// TestLostAnswersOnActions: an action request whose answer is lost (a 502
// after the API started the action) is retried; the retry's "already
// there" or "locked" answer does not fail the create, and nothing is made
// twice.
func TestLostAnswersOnActions(t *testing.T) {
	e := setup(t)
	ctx := t.Context()
	e.cloud.SetActionPolls(3)
	n := mustCreate(t, e.p, vpc("net"))
	e.cloud.FailAfter("POST /networks/{id}/actions/add_subnet", "bad_gateway", 1)
	sn := mustCreate(t, e.p, res("Subnet", "sn", map[string]any{"network": n.ID, "cidr": "10.42.1.0/24", "zone": "eu-central"}))
	e.cloud.FailAfter("POST /servers/{id}/actions/attach_to_network", "bad_gateway", 1)
	vm := mustCreate(t, e.p, res("Vm", "vm", map[string]any{"network": n.ID, "subnet": sn.ID, "image": "debian-12"}))
	if ip, _ := vm.Outputs["privateIp"].(string); !strings.HasPrefix(ip, "10.42.1.") {
		t.Errorf("privateIp = %q after a lost attach answer", ip)
	}
	e.cloud.Edit(func(st *hcloudtest.State) {
		for _, nw := range st.Networks {
			if len(nw.Subnets) != 1 {
				t.Errorf("network has subnets %v, want exactly one", nw.Subnets)
			}
		}
		for _, s := range st.Servers {
			if len(s.PrivateNet) != 1 || s.Status != "running" {
				t.Errorf("server %s: private nets %v, status %s", s.Name, s.PrivateNet, s.Status)
			}
		}
	})
	e.cloud.FailAfter("DELETE /servers/{id}", "bad_gateway", 1)
	if err := e.p.Delete(ctx, "Vm", vm.ID); err != nil && !errors.Is(err, provider.ErrNotFound) {
		t.Fatalf("Delete after a lost answer: %v", err)
	}
	if err := e.p.Delete(ctx, "Subnet", sn.ID); err != nil {
		t.Fatalf("Delete subnet: %v", err)
	}
	if _, err := e.p.Read(ctx, "Subnet", sn.ID); !errors.Is(err, provider.ErrNotFound) {
		t.Errorf("Read subnet after Delete: %v", err)
	}
}

// TestFactoryAgainstFake: the registered factory builds a working provider
// from config settings and HCLOUD_TOKEN.
func TestFactoryAgainstFake(t *testing.T) {
	e := setup(t)
	p, err := hetzner.New(t.Context(), map[string]string{"location": "hel1", "endpoint": e.cloud.URL()}, func(k string) string {
		if k == "HCLOUD_TOKEN" {
			return e.cloud.Token()
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	zones, err := p.Zones(t.Context())
	if err != nil || fmt.Sprint(zones) != "[eu-central]" {
		t.Errorf("Zones = %v, %v; want [eu-central] (hel1's network zone)", zones, err)
	}
}

// TestVmAttachmentReadsBackAsWritten: a Vm names a network, a subnet, both
// or neither; Read reports exactly what was asked for, so none of them
// plans a change on the next run.
func TestVmAttachmentReadsBackAsWritten(t *testing.T) {
	e := setup(t)
	ctx := t.Context()
	n := mustCreate(t, e.p, vpc("net"))
	sn := mustCreate(t, e.p, res("Subnet", "sn", map[string]any{"network": n.ID, "cidr": "10.42.3.0/24", "zone": "eu-central"}))
	for _, tc := range []struct {
		name  string
		props map[string]any
	}{
		{"none", map[string]any{}},
		{"network", map[string]any{"network": n.ID}},
		{"subnet", map[string]any{"subnet": sn.ID}},
		{"both", map[string]any{"network": n.ID, "subnet": sn.ID}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			props := map[string]any{"image": "ubuntu-24.04", "size": "cpx21"}
			for k, v := range tc.props {
				props[k] = v
			}
			obj := mustCreate(t, e.p, res("Vm", "vm-"+tc.name, props))
			got, err := e.p.Read(ctx, "Vm", obj.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"network", "subnet", "image", "size"} {
				if fmt.Sprint(got.Properties[k]) != fmt.Sprint(props[k]) {
					t.Errorf("%s = %v, want %v", k, got.Properties[k], props[k])
				}
			}
			if ip, _ := got.Outputs["privateIp"].(string); (len(tc.props) > 0) != strings.HasPrefix(ip, "10.42.3.") {
				t.Errorf("privateIp = %q", ip)
			}
		})
	}
}
