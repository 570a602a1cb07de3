package aws

import (
	"context"
	"fmt"
	"maps"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws/ec2api"
	"github.com/kyku/action/internal/value"
)

// renames reports whether objects of typ can take a new cloud name: an
// instance's cloud name is its Name tag, which can change. Other objects
// keep theirs: RDS identifiers, load balancer, target group, security
// group and key pair names are fixed at creation, and a VPC's or subnet's
// Name tag is how Kyku finds its gateway and route table again.
func renames(typ string) bool { return typ == "Vm" }

// Rename marks an EC2 object (Vm, Vpc, Subnet) as Kyku's resource r.Name
// (the kyku:name tag) and gives a Vm the Name tag r.CloudName; other
// objects are left as they are.
func (p *Provider) Rename(ctx context.Context, id string, r provider.Resource) (provider.Object, error) {
	k, err := p.kinds.Kind(r.Type)
	if err != nil {
		return provider.Object{}, err
	}
	var have map[string]string
	switch r.Type {
	case "Vm":
		in, err := vmKind{p}.describe(ctx, plain, ec2api.DescribeInstancesInput{InstanceIds: []string{id}}, id)
		if err != nil {
			return provider.Object{}, err
		}
		have = fromEC2Tags(in.Tags)
	case "Vpc":
		vs, err := p.vpcs(ctx, plain, ec2api.DescribeVpcsInput{VpcIds: []string{id}})
		if err != nil {
			return provider.Object{}, err
		}
		if len(vs) == 0 {
			return provider.Object{}, provider.NotFound("vpc " + id)
		}
		have = fromEC2Tags(vs[0].Tags)
	case "Subnet":
		s, err := subnetKind{p}.one(ctx, plain, ec2api.DescribeSubnetsInput{SubnetIds: []string{id}}, id)
		if err != nil {
			return provider.Object{}, err
		}
		have = fromEC2Tags(s.Tags)
	default:
		return k.Read(ctx, id)
	}
	want := maps.Clone(have)
	want[tagName] = value.SafeName(r.Name)
	if r.Type == "Vm" && r.CloudName != "" {
		if len(r.CloudName) > 256 {
			return provider.Object{}, fmt.Errorf("rename %s %s: cloud name %q is longer than the 256 characters of an AWS tag value", r.Type, id, r.CloudName)
		}
		want[tagNameAWS] = r.CloudName
	}
	if err := p.syncEC2Tags(ctx, id, have, want); err != nil {
		return provider.Object{}, fmt.Errorf("rename %s %s: %w", r.Type, id, err)
	}
	return k.Read(ctx, id)
}
