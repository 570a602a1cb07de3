package aws

import (
	"context"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws/ec2api"
	"github.com/kyku/action/internal/provider/property"
)

// vpcKind maps Vpc to a VPC plus an attached internet gateway (always
// created, tagged like the VPC, so public subnets can route to it).
// distributeAcrossAzs is the engine's business (auto-subnets); it is kept in
// the kyku:distributeAcrossAzs tag so Read reports it.
type vpcKind struct{ p *Provider }

const tagAzs = "kyku:distributeAcrossAzs"

func vpcTags(r provider.Resource) map[string]string {
	if _, ok := r.Properties["distributeAcrossAzs"]; ok {
		return wantTags(r, map[string]string{tagAzs: strconv.Itoa(property.Int(r.Properties, "distributeAcrossAzs", 0))})
	}
	return wantTags(r, nil)
}

func vpcObject(v ec2api.Vpc) provider.Object {
	tags := fromEC2Tags(v.Tags)
	props := property.SetTags(map[string]any{"cidr": aws.ToString(v.CidrBlock)}, tags, systemTag)
	if n, err := strconv.Atoi(tags[tagAzs]); err == nil {
		props["distributeAcrossAzs"] = float64(n)
	}
	return provider.NewObject(aws.ToString(v.VpcId), tags[tagNameAWS], props, nil)
}

func (k vpcKind) Lookup(ctx context.Context, name string) (provider.Object, error) {
	vs, err := k.p.vpcs(ctx, plain, ec2api.DescribeVpcsInput{Filters: byName(name)})
	if err != nil {
		return provider.Object{}, err
	}
	if len(vs) == 0 {
		return provider.Object{}, provider.NotFound("vpc " + name)
	}
	return vpcObject(vs[0]), nil
}

func (k vpcKind) Read(ctx context.Context, id string) (provider.Object, error) {
	vs, err := k.p.vpcs(ctx, plain, ec2api.DescribeVpcsInput{VpcIds: []string{id}})
	if err != nil {
		return provider.Object{}, err
	}
	if len(vs) == 0 {
		return provider.Object{}, provider.NotFound("vpc " + id)
	}
	return vpcObject(vs[0]), nil
}

func (k vpcKind) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	if err := required(r, "cidr"); err != nil {
		return provider.Object{}, err
	}
	tags := vpcTags(r)
	obj, err := k.Lookup(ctx, r.CloudName)
	if err != nil && !provider.IsNotFound(err) {
		return provider.Object{}, err
	}
	if err != nil {
		var out *ec2api.CreateVpcOutput
		err = k.p.call(ctx, "create vpc", once, func(ctx context.Context) (err error) {
			out, err = k.p.ec2.CreateVpc(ctx, &ec2api.CreateVpcInput{
				CidrBlock:         aws.String(property.String(r.Properties, "cidr")),
				TagSpecifications: tagSpec(ec2api.ResourceTypeVpc, tags),
			})
			return err
		})
		if err != nil {
			return provider.Object{}, err
		}
		obj = vpcObject(*out.Vpc)
	}
	// Idempotent too: after a crash between CreateVpc and here, the next
	// Create finds the VPC by tag and finishes the gateway.
	if _, err := k.ensureGateway(ctx, obj.ID, tags); err != nil {
		return provider.Object{}, err
	}
	return obj, nil
}

// gateway returns the internet gateway attached to vpc ("" when none).
func (p *Provider) gateway(ctx context.Context, vpc string) (string, error) {
	gws, err := p.internetGateways(ctx, settling, ec2api.DescribeInternetGatewaysInput{
		Filters: []ec2api.Filter{filter("attachment.vpc-id", vpc)},
	})
	if err != nil || len(gws) == 0 {
		return "", err
	}
	return aws.ToString(gws[0].InternetGatewayId), nil
}

func (k vpcKind) ensureGateway(ctx context.Context, vpc string, tags map[string]string) (string, error) {
	p := k.p
	if id, err := p.gateway(ctx, vpc); err != nil || id != "" {
		return id, err
	}
	// A detached gateway of ours left by an interrupted create?
	gws, err := p.internetGateways(ctx, plain, ec2api.DescribeInternetGatewaysInput{Filters: byName(tags[tagNameAWS])})
	if err != nil {
		return "", err
	}
	var id string
	for _, g := range gws {
		if len(g.Attachments) == 0 {
			id = aws.ToString(g.InternetGatewayId)
		}
	}
	if id == "" {
		var created *ec2api.CreateInternetGatewayOutput
		err = p.call(ctx, "create internet gateway", once, func(ctx context.Context) (err error) {
			created, err = p.ec2.CreateInternetGateway(ctx, &ec2api.CreateInternetGatewayInput{
				TagSpecifications: tagSpec(ec2api.ResourceTypeInternetGateway, tags),
			})
			return err
		})
		if err != nil {
			return "", err
		}
		id = aws.ToString(created.InternetGateway.InternetGatewayId)
	}
	err = p.call(ctx, "attach internet gateway", settling, func(ctx context.Context) error {
		_, err := p.ec2.AttachInternetGateway(ctx, &ec2api.AttachInternetGatewayInput{InternetGatewayId: aws.String(id), VpcId: aws.String(vpc)})
		return err
	})
	return id, err
}

func (k vpcKind) Update(ctx context.Context, id string, r provider.Resource, cur provider.Object) (provider.Object, error) {
	vs, err := k.p.vpcs(ctx, plain, ec2api.DescribeVpcsInput{VpcIds: []string{id}})
	if err != nil {
		return provider.Object{}, err
	}
	if len(vs) == 0 {
		return provider.Object{}, provider.NotFound("vpc " + id)
	}
	want := vpcTags(r)
	want[tagNameAWS] = fromEC2Tags(vs[0].Tags)[tagNameAWS]
	if err := k.p.syncEC2Tags(ctx, id, fromEC2Tags(vs[0].Tags), want); err != nil {
		return provider.Object{}, err
	}
	return k.Read(ctx, id)
}

func (k vpcKind) Delete(ctx context.Context, id string) error {
	p := k.p
	if _, err := k.Read(ctx, id); err != nil {
		return err
	}
	for {
		igw, err := p.gateway(ctx, id)
		if err != nil || igw == "" {
			if err != nil {
				return err
			}
			break
		}
		err = p.call(ctx, "detach internet gateway", plain, func(ctx context.Context) error {
			_, err := p.ec2.DetachInternetGateway(ctx, &ec2api.DetachInternetGatewayInput{InternetGatewayId: aws.String(igw), VpcId: aws.String(id)})
			return err
		})
		if err != nil {
			return err
		}
		err = p.call(ctx, "delete internet gateway", plain, func(ctx context.Context) error {
			_, err := p.ec2.DeleteInternetGateway(ctx, &ec2api.DeleteInternetGatewayInput{InternetGatewayId: aws.String(igw)})
			return err
		})
		if err != nil {
			return err
		}
	}
	return p.whileInUse(ctx, "delete vpc", func(ctx context.Context) error {
		_, err := p.ec2.DeleteVpc(ctx, &ec2api.DeleteVpcInput{VpcId: aws.String(id)})
		return err
	})
}
