package hcloudtest

import (
	"fmt"
	"strings"
	"testing"
)

func code(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

// The fake refuses what the API refuses: a server type its location does
// not sell, a network smaller than /24, more than 50 rules in a firewall,
// more than 5 firewalls on a server.
func TestLimits(t *testing.T) {
	c := New(Options{})
	defer c.Close()
	if r, b := do(t, c, "POST", "/servers", `{"name":"a","server_type":"cx23","image":"debian-12","location":"ash"}`); r.StatusCode != 400 || code(b) != "invalid_input" {
		t.Errorf("cx23 in ash: %d %v", r.StatusCode, b)
	}
	if r, b := do(t, c, "POST", "/servers", `{"name":"a","server_type":"cpx11","image":"debian-12","location":"ash"}`); r.StatusCode != 201 {
		t.Errorf("cpx11 in ash: %d %v", r.StatusCode, b)
	}
	if r, b := do(t, c, "POST", "/networks", `{"name":"n","ip_range":"10.0.0.0/25"}`); r.StatusCode != 400 || code(b) != "invalid_input" {
		t.Errorf("a /25 network: %d %v", r.StatusCode, b)
	}
	rules := make([]string, 51)
	for i := range rules {
		rules[i] = fmt.Sprintf(`{"direction":"in","protocol":"tcp","port":"22","source_ips":["10.%d.0.0/16"]}`, i)
	}
	if r, b := do(t, c, "POST", "/firewalls", `{"name":"f","rules":[`+strings.Join(rules, ",")+`]}`); r.StatusCode != 400 || code(b) != "invalid_input" {
		t.Errorf("51 rules: %d %v", r.StatusCode, b)
	}
	var fws []string
	for i := range 6 {
		_, b := do(t, c, "POST", "/firewalls", fmt.Sprintf(`{"name":"f%d"}`, i))
		fws = append(fws, fmt.Sprint(int64(b["firewall"].(map[string]any)["id"].(float64))))
	}
	var server string
	c.Edit(func(st *State) {
		for id := range st.Servers {
			server = fmt.Sprint(id)
		}
	})
	finish := func() {
		c.Edit(func(*State) { // running actions finish, their resources unlock
			for _, a := range c.actions {
				if a.status == "running" {
					c.finish(a)
				}
			}
		})
	}
	finish()
	apply := `{"apply_to":[{"type":"server","server":{"id":` + server + `}}]}`
	for i, f := range fws {
		r, b := do(t, c, "POST", "/firewalls/"+f+"/actions/apply_to_resources", apply)
		if i < 5 && r.StatusCode != 201 {
			t.Fatalf("firewall %d: %d %v", i, r.StatusCode, b)
		}
		finish()
		if i == 5 && (r.StatusCode != 403 || code(b) != "resource_limit_exceeded") {
			t.Errorf("a sixth firewall: %d %v", r.StatusCode, b)
		}
	}
}
