package elbapi

import (
	"context"
	"net/url"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

// CreateLoadBalancerInput is what Kyku sends to create a load balancer.
type CreateLoadBalancerInput struct {
	Name           *string
	Subnets        []string
	SecurityGroups []string
	Scheme         LoadBalancerSchemeEnum
	Type           LoadBalancerTypeEnum
	Tags           []Tag
}

// CreateLoadBalancerOutput is the load balancer made (or the one of that
// name and settings that was there).
type CreateLoadBalancerOutput struct {
	LoadBalancers []LoadBalancer `xml:"CreateLoadBalancerResult>LoadBalancers>member"`
}

// CreateLoadBalancer (Elastic Load Balancing API Reference,
// https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_CreateLoadBalancer.html).
func (c *Client) CreateLoadBalancer(ctx context.Context, in *CreateLoadBalancerInput) (*CreateLoadBalancerOutput, error) {
	p := url.Values{}
	awswire.SetString(p, "Name", in.Name)
	awswire.SetList(p, "Subnets", "member", in.Subnets)
	awswire.SetList(p, "SecurityGroups", "member", in.SecurityGroups)
	setEnum(p, "Scheme", in.Scheme)
	setEnum(p, "Type", in.Type)
	setTags(p, in.Tags)
	return awswire.QueryAnswer[CreateLoadBalancerOutput](ctx, c.wire, "CreateLoadBalancer", p)
}

// DescribeLoadBalancersInput selects load balancers by ARN or name (none:
// every one), a page at a time.
type DescribeLoadBalancersInput struct {
	LoadBalancerArns []string
	Names            []string
	PageSize         *int32
	Marker           *string
}

// DescribeLoadBalancersOutput is one page; NextMarker is empty on the
// last.
type DescribeLoadBalancersOutput struct {
	LoadBalancers []LoadBalancer `xml:"DescribeLoadBalancersResult>LoadBalancers>member"`
	NextMarker    *string        `xml:"DescribeLoadBalancersResult>NextMarker"`
}

// DescribeLoadBalancers (Elastic Load Balancing API Reference,
// https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_DescribeLoadBalancers.html).
func (c *Client) DescribeLoadBalancers(ctx context.Context, in *DescribeLoadBalancersInput) (*DescribeLoadBalancersOutput, error) {
	p := url.Values{}
	awswire.SetList(p, "LoadBalancerArns", "member", in.LoadBalancerArns)
	awswire.SetList(p, "Names", "member", in.Names)
	awswire.SetInt32(p, "PageSize", in.PageSize)
	awswire.SetString(p, "Marker", in.Marker)
	return awswire.QueryAnswer[DescribeLoadBalancersOutput](ctx, c.wire, "DescribeLoadBalancers", p)
}

// DeleteLoadBalancerInput names the load balancer to delete.
type DeleteLoadBalancerInput struct {
	LoadBalancerArn *string
}

// DeleteLoadBalancer (Elastic Load Balancing API Reference,
// https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_DeleteLoadBalancer.html).
func (c *Client) DeleteLoadBalancer(ctx context.Context, in *DeleteLoadBalancerInput) error {
	p := url.Values{}
	awswire.SetString(p, "LoadBalancerArn", in.LoadBalancerArn)
	return c.wire.Query(ctx, "DeleteLoadBalancer", p, nil)
}

// SetSecurityGroupsInput replaces a load balancer's security groups; an
// empty, non-nil list removes them all.
type SetSecurityGroupsInput struct {
	LoadBalancerArn *string
	SecurityGroups  []string
}

// SetSecurityGroups (Elastic Load Balancing API Reference,
// https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_SetSecurityGroups.html).
func (c *Client) SetSecurityGroups(ctx context.Context, in *SetSecurityGroupsInput) error {
	p := url.Values{}
	awswire.SetString(p, "LoadBalancerArn", in.LoadBalancerArn)
	awswire.SetList(p, "SecurityGroups", "member", in.SecurityGroups)
	return c.wire.Query(ctx, "SetSecurityGroups", p, nil)
}
