package elbapi

import (
	"context"
	"net/url"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

// CreateTargetGroupInput is what Kyku sends to create a target group.
type CreateTargetGroupInput struct {
	Name       *string
	Port       *int32
	Protocol   ProtocolEnum
	VpcId      *string
	TargetType TargetTypeEnum
	Tags       []Tag
}

// CreateTargetGroupOutput is the group made (or the one of that name and
// settings that was there).
type CreateTargetGroupOutput struct {
	TargetGroups []TargetGroup `xml:"CreateTargetGroupResult>TargetGroups>member"`
}

// CreateTargetGroup (Elastic Load Balancing API Reference,
// https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_CreateTargetGroup.html).
func (c *Client) CreateTargetGroup(ctx context.Context, in *CreateTargetGroupInput) (*CreateTargetGroupOutput, error) {
	p := url.Values{}
	awswire.SetString(p, "Name", in.Name)
	awswire.SetInt32(p, "Port", in.Port)
	setEnum(p, "Protocol", in.Protocol)
	awswire.SetString(p, "VpcId", in.VpcId)
	setEnum(p, "TargetType", in.TargetType)
	setTags(p, in.Tags)
	return awswire.QueryAnswer[CreateTargetGroupOutput](ctx, c.wire, "CreateTargetGroup", p)
}

// DescribeTargetGroupsInput selects target groups by ARN or name (none:
// every one), a page at a time.
type DescribeTargetGroupsInput struct {
	TargetGroupArns []string
	Names           []string
	PageSize        *int32
	Marker          *string
}

// DescribeTargetGroupsOutput is one page; NextMarker is empty on the
// last.
type DescribeTargetGroupsOutput struct {
	TargetGroups []TargetGroup `xml:"DescribeTargetGroupsResult>TargetGroups>member"`
	NextMarker   *string       `xml:"DescribeTargetGroupsResult>NextMarker"`
}

// DescribeTargetGroups (Elastic Load Balancing API Reference,
// https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_DescribeTargetGroups.html).
func (c *Client) DescribeTargetGroups(ctx context.Context, in *DescribeTargetGroupsInput) (*DescribeTargetGroupsOutput, error) {
	p := url.Values{}
	awswire.SetList(p, "TargetGroupArns", "member", in.TargetGroupArns)
	awswire.SetList(p, "Names", "member", in.Names)
	awswire.SetInt32(p, "PageSize", in.PageSize)
	awswire.SetString(p, "Marker", in.Marker)
	return awswire.QueryAnswer[DescribeTargetGroupsOutput](ctx, c.wire, "DescribeTargetGroups", p)
}

// DeleteTargetGroupInput names the group to delete.
type DeleteTargetGroupInput struct {
	TargetGroupArn *string
}

// DeleteTargetGroup (Elastic Load Balancing API Reference,
// https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_DeleteTargetGroup.html).
func (c *Client) DeleteTargetGroup(ctx context.Context, in *DeleteTargetGroupInput) error {
	p := url.Values{}
	awswire.SetString(p, "TargetGroupArn", in.TargetGroupArn)
	return c.wire.Query(ctx, "DeleteTargetGroup", p, nil)
}

// RegisterTargetsInput adds targets to a group.
type RegisterTargetsInput struct {
	TargetGroupArn *string
	Targets        []TargetDescription
}

// RegisterTargets (Elastic Load Balancing API Reference,
// https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_RegisterTargets.html).
func (c *Client) RegisterTargets(ctx context.Context, in *RegisterTargetsInput) error {
	return c.wire.Query(ctx, "RegisterTargets", targetsForm(in.TargetGroupArn, in.Targets), nil)
}

// DeregisterTargetsInput removes targets from a group.
type DeregisterTargetsInput struct {
	TargetGroupArn *string
	Targets        []TargetDescription
}

// DeregisterTargets (Elastic Load Balancing API Reference,
// https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_DeregisterTargets.html).
func (c *Client) DeregisterTargets(ctx context.Context, in *DeregisterTargetsInput) error {
	return c.wire.Query(ctx, "DeregisterTargets", targetsForm(in.TargetGroupArn, in.Targets), nil)
}

// targetsForm is the form of RegisterTargets and DeregisterTargets.
func targetsForm(arn *string, targets []TargetDescription) url.Values {
	p := url.Values{}
	awswire.SetString(p, "TargetGroupArn", arn)
	awswire.SetStructs(p, "Targets", "member", targets, func(pre string, t TargetDescription) {
		awswire.SetString(p, pre+".Id", t.Id)
	})
	return p
}

// DescribeTargetHealthInput names the group whose targets to list.
type DescribeTargetHealthInput struct {
	TargetGroupArn *string
}

// DescribeTargetHealthOutput is every target of the group (not paged).
type DescribeTargetHealthOutput struct {
	TargetHealthDescriptions []TargetHealthDescription `xml:"DescribeTargetHealthResult>TargetHealthDescriptions>member"`
}

// DescribeTargetHealth (Elastic Load Balancing API Reference,
// https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_DescribeTargetHealth.html).
func (c *Client) DescribeTargetHealth(ctx context.Context, in *DescribeTargetHealthInput) (*DescribeTargetHealthOutput, error) {
	p := url.Values{}
	awswire.SetString(p, "TargetGroupArn", in.TargetGroupArn)
	return awswire.QueryAnswer[DescribeTargetHealthOutput](ctx, c.wire, "DescribeTargetHealth", p)
}

// setEnum sets key to v unless v is empty.
func setEnum[E ~string](p url.Values, key string, v E) {
	if v != "" {
		p.Set(key, string(v))
	}
}
