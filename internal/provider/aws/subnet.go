package aws

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws/ec2api"
	"github.com/kyku/action/internal/provider/property"
)

// subnetKind maps Subnet to a subnet; a public one also gets public IPs on
// launch and its own route table (tagged with the subnet's name) routing
// 0.0.0.0/0 to the VPC's internet gateway.
type subnetKind struct{ p *Provider }

func subnetObject(s ec2api.Subnet) provider.Object {
	tags := fromEC2Tags(s.Tags)
	props := property.SetTags(map[string]any{
		"network": aws.ToString(s.VpcId),
		"cidr":    aws.ToString(s.CidrBlock),
		"zone":    aws.ToString(s.AvailabilityZone),
		"public":  aws.ToBool(s.MapPublicIpOnLaunch),
	}, tags, systemTag)
	return provider.NewObject(aws.ToString(s.SubnetId), tags[tagNameAWS], props, nil)
}

func (k subnetKind) one(ctx context.Context, m mode, in ec2api.DescribeSubnetsInput, what string) (ec2api.Subnet, error) {
	ss, err := k.p.subnets(ctx, m, in)
	if err != nil {
		return ec2api.Subnet{}, err
	}
	if len(ss) == 0 {
		return ec2api.Subnet{}, provider.NotFound("subnet " + what)
	}
	return ss[0], nil
}

func (k subnetKind) Lookup(ctx context.Context, name string) (provider.Object, error) {
	s, err := k.one(ctx, plain, ec2api.DescribeSubnetsInput{Filters: byName(name)}, name)
	if err != nil {
		return provider.Object{}, err
	}
	return subnetObject(s), nil
}

func (k subnetKind) Read(ctx context.Context, id string) (provider.Object, error) {
	return k.readAs(ctx, plain, id)
}

// readAs reads with mode m: settling right after a create, when "not
// found" means not visible yet.
func (k subnetKind) readAs(ctx context.Context, m mode, id string) (provider.Object, error) {
	s, err := k.one(ctx, m, ec2api.DescribeSubnetsInput{SubnetIds: []string{id}}, id)
	if err != nil {
		return provider.Object{}, err
	}
	return subnetObject(s), nil
}

func (k subnetKind) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	if err := required(r, "network", "cidr", "zone"); err != nil {
		return provider.Object{}, err
	}
	s, err := k.one(ctx, plain, ec2api.DescribeSubnetsInput{Filters: byName(r.CloudName)}, r.CloudName)
	if err != nil && !provider.IsNotFound(err) {
		return provider.Object{}, err
	}
	tags := wantTags(r, nil)
	if err != nil {
		var out *ec2api.CreateSubnetOutput
		err = k.p.call(ctx, "create subnet", settling, func(ctx context.Context) (err error) {
			out, err = k.p.ec2.CreateSubnet(ctx, &ec2api.CreateSubnetInput{
				VpcId:             aws.String(property.String(r.Properties, "network")),
				CidrBlock:         aws.String(property.String(r.Properties, "cidr")),
				AvailabilityZone:  aws.String(property.String(r.Properties, "zone")),
				TagSpecifications: tagSpec(ec2api.ResourceTypeSubnet, tags),
			})
			return err
		})
		if err != nil {
			return provider.Object{}, err
		}
		s = *out.Subnet
	}
	if err := k.setPublic(ctx, s, tags, property.Bool(r.Properties, "public")); err != nil {
		return provider.Object{}, err
	}
	return k.readAs(ctx, settling, aws.ToString(s.SubnetId))
}

// routeTable returns the Kyku route table named name, if any.
func (p *Provider) routeTable(ctx context.Context, name string) (*ec2api.RouteTable, error) {
	rts, err := p.routeTables(ctx, plain, ec2api.DescribeRouteTablesInput{Filters: byName(name)})
	if err != nil || len(rts) == 0 {
		return nil, err
	}
	return &rts[0], nil
}

// setPublic converges the subnet's public IPs and internet route. Every
// step checks first, so it also finishes an interrupted create.
func (k subnetKind) setPublic(ctx context.Context, s ec2api.Subnet, tags map[string]string, public bool) error {
	p, id := k.p, aws.ToString(s.SubnetId)
	if aws.ToBool(s.MapPublicIpOnLaunch) != public {
		err := p.call(ctx, "set subnet public ip on launch", settling, func(ctx context.Context) error {
			_, err := p.ec2.ModifySubnetAttribute(ctx, &ec2api.ModifySubnetAttributeInput{
				SubnetId: aws.String(id), MapPublicIpOnLaunch: &ec2api.AttributeBooleanValue{Value: aws.Bool(public)},
			})
			return err
		})
		if err != nil {
			return err
		}
	}
	rt, err := p.routeTable(ctx, tags[tagNameAWS])
	if err != nil {
		return err
	}
	if !public {
		if rt == nil {
			return nil
		}
		return p.dropRouteTable(ctx, rt)
	}
	if rt == nil {
		var out *ec2api.CreateRouteTableOutput
		err = p.call(ctx, "create route table", once, func(ctx context.Context) (err error) {
			out, err = p.ec2.CreateRouteTable(ctx, &ec2api.CreateRouteTableInput{
				VpcId: s.VpcId, TagSpecifications: tagSpec(ec2api.ResourceTypeRouteTable, tags),
			})
			return err
		})
		if err != nil {
			return err
		}
		rt = out.RouteTable
	}
	rtID := aws.ToString(rt.RouteTableId)
	hasRoute := false
	for _, r := range rt.Routes {
		hasRoute = hasRoute || aws.ToString(r.DestinationCidrBlock) == "0.0.0.0/0"
	}
	if !hasRoute {
		igw, err := p.gateway(ctx, aws.ToString(s.VpcId))
		if err != nil {
			return err
		}
		if igw == "" {
			return provider.NotFound("internet gateway of " + aws.ToString(s.VpcId))
		}
		err = p.call(ctx, "create internet route", settling, func(ctx context.Context) error {
			_, err := p.ec2.CreateRoute(ctx, &ec2api.CreateRouteInput{
				RouteTableId: aws.String(rtID), DestinationCidrBlock: aws.String("0.0.0.0/0"), GatewayId: aws.String(igw),
			})
			return err
		})
		if err != nil {
			return err
		}
	}
	for _, a := range rt.Associations {
		if aws.ToString(a.SubnetId) == id {
			return nil
		}
	}
	return p.call(ctx, "associate route table", settling, func(ctx context.Context) error {
		_, err := p.ec2.AssociateRouteTable(ctx, &ec2api.AssociateRouteTableInput{RouteTableId: aws.String(rtID), SubnetId: aws.String(id)})
		return err
	})
}

func (p *Provider) dropRouteTable(ctx context.Context, rt *ec2api.RouteTable) error {
	for _, a := range rt.Associations {
		aid := a.RouteTableAssociationId
		err := p.call(ctx, "disassociate route table", plain, func(ctx context.Context) error {
			_, err := p.ec2.DisassociateRouteTable(ctx, &ec2api.DisassociateRouteTableInput{AssociationId: aid})
			return err
		})
		if err != nil && !provider.IsNotFound(err) {
			return err
		}
	}
	return p.call(ctx, "delete route table", plain, func(ctx context.Context) error {
		_, err := p.ec2.DeleteRouteTable(ctx, &ec2api.DeleteRouteTableInput{RouteTableId: rt.RouteTableId})
		return err
	})
}

func (k subnetKind) Update(ctx context.Context, id string, r provider.Resource, cur provider.Object) (provider.Object, error) {
	s, err := k.one(ctx, plain, ec2api.DescribeSubnetsInput{SubnetIds: []string{id}}, id)
	if err != nil {
		return provider.Object{}, err
	}
	have := fromEC2Tags(s.Tags)
	want := wantTags(r, nil)
	want[tagNameAWS] = have[tagNameAWS] // keep the name the route table is found by
	if err := k.p.syncEC2Tags(ctx, id, have, want); err != nil {
		return provider.Object{}, err
	}
	if err := k.setPublic(ctx, s, want, property.Bool(r.Properties, "public")); err != nil {
		return provider.Object{}, err
	}
	return k.Read(ctx, id)
}

func (k subnetKind) Delete(ctx context.Context, id string) error {
	s, err := k.one(ctx, plain, ec2api.DescribeSubnetsInput{SubnetIds: []string{id}}, id)
	if err != nil {
		return err
	}
	if name := fromEC2Tags(s.Tags)[tagNameAWS]; name != "" {
		rt, err := k.p.routeTable(ctx, name)
		if err != nil {
			return err
		}
		if rt != nil {
			if err := k.p.dropRouteTable(ctx, rt); err != nil {
				return err
			}
		}
	}
	if err := k.p.waitInterfaces(ctx, "subnet-id", id); err != nil {
		return err
	}
	return k.p.whileInUse(ctx, "delete subnet", func(ctx context.Context) error {
		_, err := k.p.ec2.DeleteSubnet(ctx, &ec2api.DeleteSubnetInput{SubnetId: aws.String(id)})
		return err
	})
}
