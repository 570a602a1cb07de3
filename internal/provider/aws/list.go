package aws

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"

	elb "github.com/kyku/action/internal/provider/aws/elbapi"
	rds "github.com/kyku/action/internal/provider/aws/rdsapi"

	"github.com/kyku/action/internal/provider/aws/ec2api"
)

// Every Describe that AWS paginates is read here, to its last page: EC2
// by NextToken (a page may be empty and still have a next one, when
// filters match nothing in it), ELBv2 by NextMarker, RDS by Marker. Each
// page is one call with Kyku's retry policy; a page that fails is asked
// for again, never skipped.

// pages calls fetch with each page's token ("" first) until it returns no
// next token.
func (p *Provider) pages(ctx context.Context, op string, m mode, fetch func(ctx context.Context, token *string) (next *string, err error)) error {
	var token *string
	for n := 1; ; n++ {
		var next *string
		err := p.call(ctx, op, m, func(ctx context.Context) (err error) {
			next, err = fetch(ctx, token)
			return err
		})
		if err != nil {
			return err
		}
		if aws.ToString(next) == "" {
			return nil
		}
		if token != nil && *next == *token {
			return fmt.Errorf("%s: page %d returned its own token again", op, n)
		}
		token = next
	}
}

func (p *Provider) vpcs(ctx context.Context, m mode, in ec2api.DescribeVpcsInput) ([]ec2api.Vpc, error) {
	var all []ec2api.Vpc
	err := p.pages(ctx, "describe vpcs", m, func(ctx context.Context, token *string) (*string, error) {
		in.NextToken = token
		out, err := p.ec2.DescribeVpcs(ctx, &in)
		if err != nil {
			return nil, err
		}
		all = append(all, out.Vpcs...)
		return out.NextToken, nil
	})
	return all, err
}

func (p *Provider) subnets(ctx context.Context, m mode, in ec2api.DescribeSubnetsInput) ([]ec2api.Subnet, error) {
	var all []ec2api.Subnet
	err := p.pages(ctx, "describe subnets", m, func(ctx context.Context, token *string) (*string, error) {
		in.NextToken = token
		out, err := p.ec2.DescribeSubnets(ctx, &in)
		if err != nil {
			return nil, err
		}
		all = append(all, out.Subnets...)
		return out.NextToken, nil
	})
	return all, err
}

func (p *Provider) securityGroups(ctx context.Context, m mode, in ec2api.DescribeSecurityGroupsInput) ([]ec2api.SecurityGroup, error) {
	var all []ec2api.SecurityGroup
	err := p.pages(ctx, "describe security groups", m, func(ctx context.Context, token *string) (*string, error) {
		in.NextToken = token
		out, err := p.ec2.DescribeSecurityGroups(ctx, &in)
		if err != nil {
			return nil, err
		}
		all = append(all, out.SecurityGroups...)
		return out.NextToken, nil
	})
	return all, err
}

func (p *Provider) instances(ctx context.Context, m mode, in ec2api.DescribeInstancesInput) ([]ec2api.Instance, error) {
	var all []ec2api.Instance
	err := p.pages(ctx, "describe instances", m, func(ctx context.Context, token *string) (*string, error) {
		in.NextToken = token
		out, err := p.ec2.DescribeInstances(ctx, &in)
		if err != nil {
			return nil, err
		}
		for _, r := range out.Reservations {
			all = append(all, r.Instances...)
		}
		return out.NextToken, nil
	})
	return all, err
}

func (p *Provider) internetGateways(ctx context.Context, m mode, in ec2api.DescribeInternetGatewaysInput) ([]ec2api.InternetGateway, error) {
	var all []ec2api.InternetGateway
	err := p.pages(ctx, "describe internet gateways", m, func(ctx context.Context, token *string) (*string, error) {
		in.NextToken = token
		out, err := p.ec2.DescribeInternetGateways(ctx, &in)
		if err != nil {
			return nil, err
		}
		all = append(all, out.InternetGateways...)
		return out.NextToken, nil
	})
	return all, err
}

func (p *Provider) routeTables(ctx context.Context, m mode, in ec2api.DescribeRouteTablesInput) ([]ec2api.RouteTable, error) {
	var all []ec2api.RouteTable
	err := p.pages(ctx, "describe route tables", m, func(ctx context.Context, token *string) (*string, error) {
		in.NextToken = token
		out, err := p.ec2.DescribeRouteTables(ctx, &in)
		if err != nil {
			return nil, err
		}
		all = append(all, out.RouteTables...)
		return out.NextToken, nil
	})
	return all, err
}

func (p *Provider) networkInterfaces(ctx context.Context, m mode, in ec2api.DescribeNetworkInterfacesInput) ([]ec2api.NetworkInterface, error) {
	var all []ec2api.NetworkInterface
	err := p.pages(ctx, "describe network interfaces", m, func(ctx context.Context, token *string) (*string, error) {
		in.NextToken = token
		out, err := p.ec2.DescribeNetworkInterfaces(ctx, &in)
		if err != nil {
			return nil, err
		}
		all = append(all, out.NetworkInterfaces...)
		return out.NextToken, nil
	})
	return all, err
}

func (p *Provider) dbInstances(ctx context.Context, m mode, in rds.DescribeDBInstancesInput) ([]rds.DBInstance, error) {
	var all []rds.DBInstance
	err := p.pages(ctx, "describe db instances", m, func(ctx context.Context, token *string) (*string, error) {
		in.Marker = token
		out, err := p.rds.DescribeDBInstances(ctx, &in)
		if err != nil {
			return nil, err
		}
		all = append(all, out.DBInstances...)
		return out.Marker, nil
	})
	return all, err
}

func (p *Provider) targetGroups(ctx context.Context, m mode, in elb.DescribeTargetGroupsInput) ([]elb.TargetGroup, error) {
	var all []elb.TargetGroup
	err := p.pages(ctx, "describe target groups", m, func(ctx context.Context, token *string) (*string, error) {
		in.Marker = token
		out, err := p.elb.DescribeTargetGroups(ctx, &in)
		if err != nil {
			return nil, err
		}
		all = append(all, out.TargetGroups...)
		return out.NextMarker, nil
	})
	return all, err
}

func (p *Provider) loadBalancers(ctx context.Context, m mode, in elb.DescribeLoadBalancersInput) ([]elb.LoadBalancer, error) {
	var all []elb.LoadBalancer
	err := p.pages(ctx, "describe load balancers", m, func(ctx context.Context, token *string) (*string, error) {
		in.Marker = token
		out, err := p.elb.DescribeLoadBalancers(ctx, &in)
		if err != nil {
			return nil, err
		}
		all = append(all, out.LoadBalancers...)
		return out.NextMarker, nil
	})
	return all, err
}

func (p *Provider) listeners(ctx context.Context, m mode, in elb.DescribeListenersInput) ([]elb.Listener, error) {
	var all []elb.Listener
	err := p.pages(ctx, "describe listeners", m, func(ctx context.Context, token *string) (*string, error) {
		in.Marker = token
		out, err := p.elb.DescribeListeners(ctx, &in)
		if err != nil {
			return nil, err
		}
		all = append(all, out.Listeners...)
		return out.NextMarker, nil
	})
	return all, err
}
