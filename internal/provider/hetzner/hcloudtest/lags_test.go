package hcloudtest

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock a test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

// What the fake answered unlike the API, each as the API does: numeric
// image IDs taken, a subnet with servers or load balancers attached
// refused with service_error, a firewall still listing a server deleted a
// moment ago, a subnet added a moment ago not yet attachable, a load
// balancer delete answered 201 with its action, and GET /actions by ID.
func TestAsTheAPIAnswers(t *testing.T) {
	clk := &fakeClock{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	c := New(Options{Now: clk.Now})
	defer c.Close()
	id := func(b map[string]any, kind string) string {
		return fmt.Sprint(int64(b[kind].(map[string]any)["id"].(float64)))
	}
	_, nb := do(t, c, "POST", "/networks", `{"name":"n","ip_range":"10.0.0.0/16"}`)
	net := id(nb, "network")
	if r, b := do(t, c, "POST", "/networks/"+net+"/actions/add_subnet", `{"type":"cloud","ip_range":"10.0.1.0/24","network_zone":"eu-central"}`); r.StatusCode != 201 {
		t.Fatalf("add subnet: %d %v", r.StatusCode, b)
	}
	clk.advance(time.Minute) // the action finishes; the subnet is new
	do(t, c, "GET", "/networks/"+net, "")
	_, fb := do(t, c, "POST", "/firewalls", `{"name":"f"}`)
	fw := id(fb, "firewall")
	r, sb := do(t, c, "POST", "/servers", fmt.Sprintf(`{"name":"s","server_type":"cx23","image":%d,"start_after_create":false,"firewalls":[{"firewall":%s}]}`, Images["debian-12"], fw))
	if r.StatusCode != 201 {
		t.Fatalf("server with a numeric image ID: %d %v", r.StatusCode, sb)
	}
	srv := id(sb, "server")
	clk.advance(time.Second) // the create finishes
	do(t, c, "GET", "/servers/"+srv, "")
	attach := `{"network":` + net + `,"ip_range":"10.0.1.0/24"}`
	if r, b := do(t, c, "POST", "/servers/"+srv+"/actions/attach_to_network", attach); r.StatusCode != 422 || code(b) != "no_subnet_available" {
		t.Errorf("attach to a subnet added a moment ago: %d %v, want no_subnet_available", r.StatusCode, b)
	}
	clk.advance(SubnetLag)
	if r, b := do(t, c, "POST", "/servers/"+srv+"/actions/attach_to_network", attach); r.StatusCode != 201 {
		t.Fatalf("attach: %d %v", r.StatusCode, b)
	}
	clk.advance(time.Minute)
	do(t, c, "GET", "/servers/"+srv, "")
	if r, b := do(t, c, "POST", "/networks/"+net+"/actions/delete_subnet", `{"ip_range":"10.0.1.0/24"}`); r.StatusCode != 503 || code(b) != "service_error" || errorOf(b)["message"] != "servers are attached" {
		t.Errorf("delete a subnet with a server: %d %v, want service_error servers are attached", r.StatusCode, b)
	}
	r, ab := do(t, c, "DELETE", "/servers/"+srv, "")
	if r.StatusCode != 200 {
		t.Fatalf("delete server: %d %v", r.StatusCode, ab)
	}
	action := fmt.Sprint(int64(ab["action"].(map[string]any)["id"].(float64)))
	if r, b := do(t, c, "GET", "/actions", ""); r.StatusCode != 400 || code(b) != "invalid_input" {
		t.Errorf("GET /actions without id: %d %v", r.StatusCode, b)
	}
	if r, b := do(t, c, "GET", "/actions?id="+action+"&sort=status&sort=id", ""); r.StatusCode != 200 || len(b["actions"].([]any)) != 1 {
		t.Errorf("GET /actions?id=%s: %d %v", action, r.StatusCode, b)
	}
	clk.advance(2 * time.Second) // the delete finishes: the server is gone
	do(t, c, "GET", "/servers", "")
	if r, b := do(t, c, "DELETE", "/firewalls/"+fw, ""); r.StatusCode != 422 || code(b) != "resource_in_use" {
		t.Errorf("delete the firewall right after its server: %d %v, want resource_in_use (the API lags)", r.StatusCode, b)
	}
	clk.advance(FirewallLag)
	if r, b := do(t, c, "DELETE", "/firewalls/"+fw, ""); r.StatusCode != 204 {
		t.Errorf("delete the firewall once the API caught up: %d %v", r.StatusCode, b)
	}
	_, lb := do(t, c, "POST", "/load_balancers", `{"name":"lb","load_balancer_type":"lb11","location":"fsn1","network":`+net+`}`)
	clk.advance(time.Minute)
	do(t, c, "GET", "/load_balancers", "")
	if r, b := do(t, c, "POST", "/networks/"+net+"/actions/delete_subnet", `{"ip_range":"10.0.1.0/24"}`); r.StatusCode != 503 || errorOf(b)["message"] != "load balancers are attached" {
		t.Errorf("delete a subnet with a load balancer: %d %v", r.StatusCode, b)
	}
	if r, b := do(t, c, "DELETE", "/load_balancers/"+id(lb, "load_balancer"), ""); r.StatusCode != 201 || b["action"] == nil {
		t.Errorf("delete a load balancer: %d %v, want 201 with its action", r.StatusCode, b)
	}
}
