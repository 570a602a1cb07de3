package hcloudtest

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"testing"
	"time"
)

// sshPublicKey is a well-formed OpenSSH ed25519 public key derived from seed.
func sshPublicKey(seed string) string {
	sum := sha256.Sum256([]byte(seed))
	pub := ed25519.NewKeyFromSeed(sum[:]).Public().(ed25519.PublicKey)
	str := func(b []byte) []byte { return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...) }
	return "ssh-ed25519 " + base64.StdEncoding.EncodeToString(append(str([]byte("ssh-ed25519")), str(pub)...)) + " " + seed
}

// What every kind of object shares — a listing under its plural key with
// the name filter, get, rename (names unique per project), relabel (labels
// validated), not_found naming the kind, delete — behaves alike for all.
func TestEveryKindSharesTheBasics(t *testing.T) {
	for _, tc := range []struct {
		path, one, taken string
		body             func(name string) string
		deleted          int // status of DELETE
	}{
		{"/networks", "network", "network name is already used",
			func(n string) string { return `{"name":"` + n + `","ip_range":"10.0.0.0/16"}` }, 204},
		{"/firewalls", "firewall", "firewall name is already used",
			func(n string) string { return `{"name":"` + n + `"}` }, 204},
		{"/ssh_keys", "ssh_key", "SSH key with the same name already exists",
			func(n string) string { return `{"name":"` + n + `","public_key":"` + sshPublicKey(n) + `"}` }, 204},
		{"/servers", "server", "server name is already used",
			func(n string) string { return `{"name":"` + n + `","server_type":"cx23","image":"debian-12"}` }, 200},
		{"/load_balancers", "load_balancer", "load balancer name is already used",
			func(n string) string { return `{"name":"` + n + `","load_balancer_type":"lb11","location":"fsn1"}` }, 201},
	} {
		t.Run(tc.one, func(t *testing.T) {
			now := time.Unix(1_700_000_000, 0)
			c := New(Options{Now: func() time.Time { return now }})
			defer c.Close()
			ids := map[string]int64{}
			for _, n := range []string{"alpha", "beta"} {
				resp, b := do(t, c, "POST", tc.path, tc.body(n))
				if resp.StatusCode != 201 {
					t.Fatalf("create %s: %d %v", n, resp.StatusCode, b)
				}
				ids[n] = int64(b[tc.one].(map[string]any)["id"].(float64))
			}
			_, b := do(t, c, "GET", tc.path+"?name=beta", "")
			if l, _ := b[tc.one+"s"].([]any); len(l) != 1 || l[0].(map[string]any)["name"] != "beta" {
				t.Errorf("list by name: %v", b)
			}
			one := fmt.Sprintf("%s/%d", tc.path, ids["alpha"])
			if resp, b := do(t, c, "PUT", one, `{"name":"beta"}`); resp.StatusCode != 409 || errorOf(b)["message"] != tc.taken {
				t.Errorf("rename to a name in use: %d %v", resp.StatusCode, b)
			}
			if resp, b := do(t, c, "PUT", one, `{"labels":{"hetzner.cloud/x":"y"}}`); resp.StatusCode != 400 || errorOf(b)["code"] != "invalid_input" {
				t.Errorf("reserved label: %d %v", resp.StatusCode, b)
			}
			resp, b := do(t, c, "PUT", one, `{"name":"gamma","labels":{"env":"prod"}}`)
			got, _ := b[tc.one].(map[string]any)
			if resp.StatusCode != 200 || got["name"] != "gamma" || fmt.Sprint(got["labels"]) != "map[env:prod]" {
				t.Errorf("rename and relabel: %d %v", resp.StatusCode, b)
			}
			if resp, b := do(t, c, "GET", tc.path+"/999", ""); resp.StatusCode != 404 || errorOf(b)["message"] != tc.one+" with ID '999' not found" {
				t.Errorf("get a missing one: %d %v", resp.StatusCode, b)
			}
			now = now.Add(time.Minute) // the create actions have finished
			if resp, b := do(t, c, "DELETE", one, ""); resp.StatusCode != tc.deleted {
				t.Errorf("delete: %d %v, want %d", resp.StatusCode, b, tc.deleted)
			}
		})
	}
}

func errorOf(b map[string]any) map[string]any {
	e, _ := b["error"].(map[string]any)
	return e
}
