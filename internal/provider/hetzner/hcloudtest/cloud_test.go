package hcloudtest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func do(t *testing.T, c *Cloud, method, path, body string) (*http.Response, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, c.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if len(data) > 0 {
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatalf("%s %s: body %q is not JSON", method, path, data)
		}
	}
	return resp, out
}

// The API lives under the base path only, errors have the documented
// shape, and every answer carries the rate-limit headers.
func TestBasePathErrorsAndHeaders(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	c := New(Options{Now: func() time.Time { return now }})
	defer c.Close()
	resp, body := do(t, c, "GET", "/networks/99", "")
	if resp.StatusCode != 404 || body["error"].(map[string]any)["code"] != "not_found" {
		t.Errorf("GET a missing network: %d %v", resp.StatusCode, body)
	}
	if resp.Header.Get("RateLimit-Limit") != "3600" || resp.Header.Get("RateLimit-Remaining") != "3599" {
		t.Errorf("headers %v", resp.Header)
	}
	r2, err := http.Get(strings.TrimSuffix(c.URL(), BasePath) + "/networks")
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != 401 && r2.StatusCode != 404 {
		t.Errorf("a request without the base path got %d", r2.StatusCode)
	}
	c.SetRateLimit(3600, 0)
	resp, body = do(t, c, "GET", "/networks", "")
	if resp.StatusCode != 429 || body["error"].(map[string]any)["code"] != "rate_limit_exceeded" {
		t.Errorf("empty bucket: %d %v", resp.StatusCode, body)
	}
	if resp.Header.Get("RateLimit-Reset") != "1700003600" {
		t.Errorf("RateLimit-Reset = %s, want the time the bucket is full again", resp.Header.Get("RateLimit-Reset"))
	}
	now = now.Add(time.Second)
	if resp, _ := do(t, c, "GET", "/networks", ""); resp.StatusCode != 200 {
		t.Errorf("a second later (one request refilled): %d", resp.StatusCode)
	}
}

func TestPaginationAndSelector(t *testing.T) {
	c := New(Options{})
	defer c.Close()
	for i := range 60 {
		env := "prod"
		if i%2 == 1 {
			env = "dev"
		}
		body := `{"name":"n` + string(rune('a'+i/26)) + string(rune('a'+i%26)) + `","ip_range":"10.0.0.0/16","labels":{"env":"` + env + `"}}`
		if resp, b := do(t, c, "POST", "/networks", body); resp.StatusCode != 201 {
			t.Fatalf("create: %d %v", resp.StatusCode, b)
		}
	}
	_, b := do(t, c, "GET", "/networks?label_selector=env%3Dprod&per_page=25&page=2", "")
	meta := b["meta"].(map[string]any)["pagination"].(map[string]any)
	want := map[string]any{"page": 2.0, "per_page": 25.0, "previous_page": 1.0, "next_page": nil, "last_page": 2.0, "total_entries": 30.0}
	if diff := cmp.Diff(want, meta); diff != "" {
		t.Errorf("pagination (-want +got):\n%s", diff)
	}
	if n := len(b["networks"].([]any)); n != 5 {
		t.Errorf("page 2 holds %d networks, want 5", n)
	}
	if resp, b := do(t, c, "POST", "/networks", `{"name":"naa","ip_range":"10.1.0.0/16"}`); resp.StatusCode != 409 || b["error"].(map[string]any)["code"] != "uniqueness_error" {
		t.Errorf("duplicate name: %d %v", resp.StatusCode, b)
	}
}

func TestSelector(t *testing.T) {
	labels := map[string]string{"env": "prod", "kyku-tg/web": "http-80", "tier": "a"}
	for sel, want := range map[string]bool{
		"env=prod": true, "env==prod": true, "env!=prod": false, "kyku-tg/web": true, "!kyku-tg/web": false,
		"env in (dev, prod)": true, "env notin (prod)": false, "env=prod,tier=b": false, "env=prod,tier in (a,b)": true, "missing": false,
	} {
		s, err := parseSelector(sel)
		if err != nil {
			t.Errorf("%q: %v", sel, err)
			continue
		}
		if got := s.matches(labels); got != want {
			t.Errorf("%q matches %v = %v, want %v", sel, labels, got, want)
		}
	}
	for _, bad := range []string{"env=a b", "a,,b", "k in a"} {
		if _, err := parseSelector(bad); err == nil {
			t.Errorf("%q parsed; want an error", bad)
		}
	}
}
