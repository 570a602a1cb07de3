package aws_test

import (
	"testing"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider/aws/ec2api"
	"github.com/kyku/action/internal/provider/providertest"
	"github.com/kyku/action/internal/statemgr/local"
)

// A moved instance keeps its EC2 instance and takes the new Name and
// kyku:name tags; the VPC keeps its Name (Kyku finds its gateway by it)
// and gets the new kyku:name.
func TestMovedRenamesOnAWS(t *testing.T) {
	p, srv := fake(t, engineOptions)
	e := engine.New(p, local.New(t.TempDir(), "", local.Options{}), engine.Options{DeployPrefix: "kyku0001", RetryBase: time.Millisecond})
	ctx := t.Context()
	old := providertest.Parse(t, `provider: { name: aws, region: eu-west-1 }
resources:
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16, distributeAcrossAzs: 1 } }
  app: { type: Vm, properties: { image: debian-12, network: "${net}", subnet: "${net-subnet-public-0}" } }
`)
	if res, err := e.Apply(ctx, old, engine.ApplyOptions{AutoApprove: true}, nil); err != nil || res.Err() != nil {
		t.Fatalf("apply: %v %v", err, res.Err())
	}
	st, _ := e.ReadState(ctx)
	vmID, vpcID := st.Resources["app"].ProviderID, st.Resources["net"].ProviderID
	moved := providertest.Parse(t, `provider: { name: aws, region: eu-west-1 }
resources:
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16, distributeAcrossAzs: 1 } }
  web: { type: Vm, count: 1, properties: { image: debian-12, network: "${net}", subnet: "${net-subnet-public-0}" } }
moved:
  - { from: app, to: "web[0]" }
`)
	pl, err := e.Plan(ctx, moved)
	if err != nil {
		t.Fatal(err)
	}
	var mv plan.Change
	for _, c := range pl.Changes {
		if c.Action != plan.NoOp {
			mv = c
		}
	}
	if got := providertest.Actions(pl); len(got) != 1 || mv.Action != plan.Move || mv.CloudName != "kyku0001-web-0" || mv.PriorCloudName != "kyku0001-app" {
		t.Fatalf("plan %v: %+v", got, mv)
	}
	if res, err := e.Apply(ctx, moved, engine.ApplyOptions{AutoApprove: true}, pl); err != nil || res.Err() != nil {
		t.Fatalf("apply: %v %v", err, res.Err())
	}
	c := clients(srv, nil).EC2
	out, err := c.DescribeInstances(ctx, &ec2api.DescribeInstancesInput{InstanceIds: []string{vmID}})
	if err != nil || len(out.Reservations) != 1 {
		t.Fatalf("describe %s: %v", vmID, err)
	}
	tags := map[string]string{}
	for _, tg := range out.Reservations[0].Instances[0].Tags {
		tags[sdkaws.ToString(tg.Key)] = sdkaws.ToString(tg.Value)
	}
	if tags["Name"] != "kyku0001-web-0" || tags["kyku:name"] != "web-0" {
		t.Errorf("instance tags %v", tags)
	}
	if srv.Calls("RunInstances") != 1 || srv.Calls("TerminateInstances") != 0 {
		t.Errorf("RunInstances %d, TerminateInstances %d: the move created or destroyed", srv.Calls("RunInstances"), srv.Calls("TerminateInstances"))
	}
	st, _ = e.ReadState(ctx)
	if r := st.Resources["web[0]"]; r == nil || r.ProviderID != vmID || r.CloudName != "kyku0001-web-0" || st.Resources["net"].ProviderID != vpcID {
		t.Errorf("state: %+v", st.Resources)
	}
	if pl, err := e.Plan(ctx, moved); err != nil || pl.HasChanges() {
		t.Errorf("plan after: %v %v", err, providertest.Actions(pl))
	}
}
