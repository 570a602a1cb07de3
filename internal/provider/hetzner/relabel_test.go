package hetzner_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
)

// TestRelabelRetried: a tag change whose label update is answered
// "locked" is retried with the object as read, not with what the failed
// attempt answered (nothing), and lands.
func TestRelabelRetried(t *testing.T) {
	e := setup(t)
	ctx := t.Context()
	n := mustCreate(t, e.p, vpc("net"))
	for _, tc := range []struct {
		route string
		r     provider.Resource
	}{
		{"PUT /networks/{id}", vpc("net")},
		{"PUT /ssh_keys/{id}", res("SshKey", "key", map[string]any{"publicKey": publicKey("relabel")})},
		{"PUT /firewalls/{id}", res("SecurityGroup", "fw", map[string]any{"network": n.ID})},
		{"PUT /servers/{id}", res("Vm", "vm", map[string]any{"image": "debian-12", "size": "small"})},
	} {
		t.Run(tc.r.Type, func(t *testing.T) {
			obj := mustCreate(t, e.p, tc.r)
			tc.r.Properties["tags"] = map[string]any{"env": "prod"}
			before := e.p.Retries()
			e.cloud.Fail(tc.route, "locked", 1)
			got, err := e.p.Update(ctx, obj.ID, tc.r)
			if err != nil {
				t.Fatalf("update after a locked label update: %v", err)
			}
			if d := cmp.Diff(map[string]any{"env": "prod"}, got.Properties["tags"]); d != "" {
				t.Errorf("tags (-want +got):\n%s", d)
			}
			if e.p.Retries() == before {
				t.Error("the locked answer was not retried")
			}
		})
	}
}
