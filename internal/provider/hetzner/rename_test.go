package hetzner_test

import (
	"strconv"
	"testing"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider/hetzner"
	"github.com/kyku/action/internal/provider/providertest"
)

// A moved resource keeps its Hetzner object (same ID) and takes the new
// cloud name and kyku-name label in one update; an instance's address
// becomes web-0 in names and labels.
func TestMovedRenamesOnHetzner(t *testing.T) {
	e := setup(t)
	eng := newEngine(t, e)
	ctx := t.Context()
	key := publicKey("rename")
	old := providertest.Parse(t, `provider: hetzner
resources:
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16, distributeAcrossAzs: 1 } }
  deploy: { type: SshKey, properties: { publicKey: "`+key+`" } }
  app-server:
    type: Vm
    properties: { image: debian-12, network: "${net}", subnet: "${net-subnet-public-0}", sshKeys: ["${deploy}"] }
`)
	if res, err := eng.Apply(ctx, old, engine.ApplyOptions{AutoApprove: true}, nil); err != nil || res.Err() != nil {
		t.Fatalf("apply: %v %v", err, res.Err())
	}
	st, err := eng.ReadState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	serverID, keyID := st.Resources["app-server"].ProviderID, st.Resources["deploy"].ProviderID
	moved := providertest.Parse(t, `provider: hetzner
resources:
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16, distributeAcrossAzs: 1 } }
  keys: { type: SshKey, count: 1, properties: { publicKey: "`+key+`" } }
  web:
    type: Vm
    count: 1
    properties: { image: debian-12, network: "${net}", subnet: "${net-subnet-public-0}", sshKeys: ["${keys[0]}"] }
moved:
  - { from: app-server, to: "web[0]" }
  - { from: deploy, to: "keys[0]" }
`)
	p, err := eng.Plan(ctx, moved)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range p.Changes {
		if c.Action != plan.NoOp {
			got = append(got, c.Action.String()+" "+c.ResourceID+" "+c.PriorCloudName+" → "+c.CloudName)
		}
	}
	want := []string{"move keys[0] kyku0001-deploy → kyku0001-keys-0", "move web[0] kyku0001-app-server → kyku0001-web-0"}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("plan: %q, want %q", got, want)
	}
	if res, err := eng.Apply(ctx, moved, engine.ApplyOptions{AutoApprove: true}, p); err != nil || res.Err() != nil {
		t.Fatalf("apply: %v %v", err, res.Err())
	}
	c := hetzner.NewClient(e.cloud.URL(), e.cloud.Token(), nil)
	id, _ := strconv.ParseInt(serverID, 10, 64)
	s, _, err := c.Server.GetByID(ctx, id)
	if err != nil || s == nil {
		t.Fatalf("server %s: %v", serverID, err)
	}
	if s.Name != "kyku0001-web-0" || s.Labels["kyku-name"] != "web-0" {
		t.Errorf("server %d: name %q, kyku-name %q", s.ID, s.Name, s.Labels["kyku-name"])
	}
	kid, _ := strconv.ParseInt(keyID, 10, 64)
	k, _, err := c.SSHKey.GetByID(ctx, kid)
	if err != nil || k == nil || k.Name != "kyku0001-keys-0" || k.Labels["kyku-name"] != "keys-0" {
		t.Errorf("ssh key %s: %+v %v", keyID, k, err)
	}
	st, err = eng.ReadState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r := st.Resources["web[0]"]; r == nil || r.ProviderID != serverID || r.CloudName != "kyku0001-web-0" {
		t.Errorf("web[0] in state: %+v", r)
	}
	if p, err := eng.Plan(ctx, moved); err != nil || p.HasChanges() {
		t.Errorf("plan after the move: %v %v", err, providertest.Actions(p))
	}
}
