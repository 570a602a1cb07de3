package hetzner_test

import (
	"testing"
	"time"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider/providertest"
	"github.com/kyku/action/internal/statemgr/local"
)

// The actions of one request are waited for together, in one GET
// /actions?id=… per poll, and the polls back off: an action that runs 60
// seconds costs a handful of requests, not sixty (hcloud-go's action
// waiter, ActionClient.WaitForFunc).
func TestActionsWaitedTogetherWithBackoff(t *testing.T) {
	e := setup(t)
	e.cloud.SetActionPolls(60) // each action runs 60 polls or 60 seconds
	n := mustCreate(t, e.p, vpc("net"))
	e.cloud.ResetCalls()
	start := e.clock.Now()
	mustCreate(t, e.p, res("Subnet", "sn", map[string]any{"network": n.ID, "cidr": "10.42.1.0/24", "zone": "eu-central"}))
	if took := e.clock.Now().Sub(start); took < 60*time.Second {
		t.Fatalf("the subnet's action of 60 seconds was waited for %v", took)
	}
	lists, ones := e.cloud.Calls("GET /actions"), e.cloud.Calls("GET /actions/{id}")
	if ones != 0 || lists == 0 || lists > 10 {
		t.Errorf("GET /actions %d times, GET /actions/{id} %d times; want one list per poll, backing off: at most 10 for 60 seconds", lists, ones)
	}
	// A server: its create, attach and power-on actions and its boot.
	e.cloud.ResetCalls()
	mustCreate(t, e.p, res("Vm", "vm", map[string]any{"network": n.ID, "image": "debian-12"}))
	if ones := e.cloud.Calls("GET /actions/{id}"); ones != 0 {
		t.Errorf("GET /actions/{id} %d times; want the waiter's lists only", ones)
	}
	if all := e.cloud.Calls(""); all > 30 {
		t.Errorf("creating one server took %d requests; want at most 30", all)
	}
}

// A large apply stays within Hetzner's 3,600 requests an hour: 40 servers
// made one after the other (each action and boot lasting half a minute,
// as on Hetzner) take well under one request a second (about 830 an
// hour) and never meet a 429. Polling every action and boot once a
// second made about 3,950 an hour, more than the bucket refills.
func TestLargeApplyStaysWithinTheRateLimit(t *testing.T) {
	e := setup(t)
	e.cloud.SetActionPolls(30)
	e.cloud.SetBootPolls(30)
	cfg := `provider: { name: hetzner, location: fsn1 }
resources:
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }
  sub: { type: Subnet, properties: { network: "${net}", cidr: 10.0.1.0/24, zone: eu-central } }
  fw: { type: SecurityGroup, properties: { network: "${net}", ingress: [ { port: 22, cidr: 0.0.0.0/0 } ] } }
  web:
    type: Vm
    count: 40
    properties: { network: "${net}", subnet: "${sub}", securityGroups: [ "${fw}" ], image: debian-12 }
`
	opts := engineOptions
	opts.Parallelism = 1 // one after the other: the fake clock is then the apply's real duration
	eng := engine.New(e.p, local.New(t.TempDir(), "", local.Options{}), opts)
	start := e.clock.Now()
	res, err := eng.Apply(t.Context(), providertest.Parse(t, cfg), engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed) > 0 {
		t.Fatalf("failed: %v", res.Failed[0].Err)
	}
	took := e.clock.Now().Sub(start)
	calls := e.cloud.Calls("")
	perHour := float64(calls) / took.Hours()
	t.Logf("%d requests in %v: %.0f an hour, %.1f per server", calls, took.Round(time.Second), perHour, float64(calls)/40)
	if n := e.cloud.Limited(); n > 0 || perHour > 1800 {
		t.Errorf("%d answers were 429; %d requests in %v (%.0f an hour); want none and at most half the 3,600 an hour", n, calls, took, perHour)
	}
}
