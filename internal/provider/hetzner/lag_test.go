package hetzner_test

// Tests for what the real API answers for a moment after a change, and
// for what it refuses while something still uses an object. Each fails
// with the provider as it was against the fake made as strict as the API.

import (
	"strconv"
	"strings"
	"testing"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/hetzner/hcloudtest"
)

// stack is a network with a subnet, a firewall and a server in both.
func stack(t *testing.T, e *env) (net, sub, fw, vm provider.Object) {
	t.Helper()
	net = mustCreate(t, e.p, vpc("net"))
	sub = mustCreate(t, e.p, res("Subnet", "sub", map[string]any{"network": net.ID, "cidr": "10.42.1.0/24", "zone": "eu-central"}))
	fw = mustCreate(t, e.p, res("SecurityGroup", "fw", map[string]any{"network": net.ID, "ingress": []any{map[string]any{"port": float64(22), "cidr": "0.0.0.0/0"}}}))
	vm = mustCreate(t, e.p, res("Vm", "vm", map[string]any{"network": net.ID, "subnet": sub.ID, "securityGroups": []any{fw.ID}, "image": "debian-12"}))
	return net, sub, fw, vm
}

// A server attaches to a subnet added a moment ago: the API answers
// no_subnet_available for a while (hcloudtest.SubnetLag), which is
// retried, bounded, as terraform-provider-hcloud does.
func TestAttachRightAfterTheSubnetIsAdded(t *testing.T) {
	e := setup(t)
	_, _, _, vm := stack(t, e)
	if ip, _ := vm.Outputs["privateIp"].(string); !strings.HasPrefix(ip, "10.42.1.") {
		t.Errorf("privateIp = %q, want one in the new subnet", ip)
	}
	if e.p.Retries() == 0 {
		t.Error("no retry: the new subnet's no_subnet_available was not felt")
	}
}

// A firewall whose servers were deleted a moment ago still lists them
// (hcloudtest.FirewallLag): its delete answers resource_in_use, which is
// retried until the API catches up.
func TestFirewallDeletedRightAfterItsServers(t *testing.T) {
	e := setup(t)
	ctx := t.Context()
	_, _, fw, vm := stack(t, e)
	if err := e.p.Delete(ctx, "Vm", vm.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.p.Delete(ctx, "SecurityGroup", fw.ID); err != nil {
		t.Fatalf("firewall delete right after its server: %v", err)
	}
	if n := e.cloud.Calls("DELETE /firewalls/{id}"); n < 2 {
		t.Errorf("%d deletes; the first should have met resource_in_use", n)
	}
}

// A firewall a server that stays still uses is not retried for minutes:
// the delete fails at once, naming the server.
func TestFirewallStillAppliedFailsAtOnce(t *testing.T) {
	e := setup(t)
	_, _, fw, _ := stack(t, e)
	err := e.p.Delete(t.Context(), "SecurityGroup", fw.ID)
	if err == nil || !strings.Contains(err.Error(), `is still applied to server "kyku0001-vm"`) {
		t.Fatalf("err = %v, want the server that still has it", err)
	}
	if n := e.cloud.Calls("DELETE /firewalls/{id}"); n != 1 {
		t.Errorf("%d deletes, want 1", n)
	}
}

// A subnet servers are attached in is refused with service_error
// ("servers are attached", as the real API answers): the delete fails at
// once naming the server, and waits when the server is going away.
func TestSubnetWithServersAttached(t *testing.T) {
	e := setup(t)
	ctx := t.Context()
	_, sub, _, vm := stack(t, e)
	err := e.p.Delete(ctx, "Subnet", sub.ID)
	if err == nil || !strings.Contains(err.Error(), `still has server "kyku0001-vm"`) {
		t.Fatalf("err = %v, want the server attached", err)
	}
	if n := e.cloud.Calls("POST /networks/{id}/actions/delete_subnet"); n != 1 {
		t.Errorf("%d delete_subnet requests, want 1", n)
	}
	if err := e.p.Delete(ctx, "Vm", vm.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.p.Delete(ctx, "Subnet", sub.ID); err != nil {
		t.Errorf("subnet delete after its server went: %v", err)
	}
}

// The API takes an image by ID as well as by name; so does the fake.
func TestImageByID(t *testing.T) {
	e := setup(t)
	n := mustCreate(t, e.p, vpc("net"))
	sub := mustCreate(t, e.p, res("Subnet", "sub", map[string]any{"network": n.ID, "cidr": "10.42.1.0/24", "zone": "eu-central"}))
	id := hcloudtest.Images["debian-12"]
	vm := mustCreate(t, e.p, res("Vm", "vm", map[string]any{"network": n.ID, "subnet": sub.ID, "image": itoa(id)}))
	if vm.Properties["image"] != itoa(id) {
		t.Errorf("image reads %v, want %d as written", vm.Properties["image"], id)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
