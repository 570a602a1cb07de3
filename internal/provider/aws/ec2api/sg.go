package ec2api

import "context"

// CreateSecurityGroupInput creates a security group in a VPC, tagged.
type CreateSecurityGroupInput struct {
	GroupName         *string
	Description       *string
	VpcId             *string
	TagSpecifications []TagSpecification
}

// CreateSecurityGroupOutput names the group made.
type CreateSecurityGroupOutput struct {
	GroupId *string `xml:"groupId"`
}

// CreateSecurityGroup: Amazon EC2 API Reference, CreateSecurityGroup
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CreateSecurityGroup.html);
// the description is sent as GroupDescription.
func (c *Client) CreateSecurityGroup(ctx context.Context, in *CreateSecurityGroupInput) (*CreateSecurityGroupOutput, error) {
	f := newForm()
	f.str("GroupName", in.GroupName)
	f.str("GroupDescription", in.Description)
	f.str("VpcId", in.VpcId)
	f.tagSpecs(in.TagSpecifications)
	return call[CreateSecurityGroupOutput](ctx, c, "CreateSecurityGroup", f)
}

// DescribeSecurityGroupsInput lists security groups by ID and filters,
// one page from NextToken.
type DescribeSecurityGroupsInput struct {
	GroupIds  []string
	Filters   []Filter
	NextToken *string
}

// DescribeSecurityGroupsOutput is one page; NextToken is empty on the
// last.
type DescribeSecurityGroupsOutput struct {
	SecurityGroups []SecurityGroup `xml:"securityGroupInfo>item"`
	NextToken      *string         `xml:"nextToken"`
}

// DescribeSecurityGroups: Amazon EC2 API Reference,
// DescribeSecurityGroups
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeSecurityGroups.html).
func (c *Client) DescribeSecurityGroups(ctx context.Context, in *DescribeSecurityGroupsInput) (*DescribeSecurityGroupsOutput, error) {
	f := newForm()
	f.strs("GroupId", in.GroupIds)
	f.filters(in.Filters)
	f.str("NextToken", in.NextToken)
	return call[DescribeSecurityGroupsOutput](ctx, c, "DescribeSecurityGroups", f)
}

// DeleteSecurityGroupInput deletes a security group.
type DeleteSecurityGroupInput struct{ GroupId *string }

// DeleteSecurityGroupOutput is an accepted delete.
type DeleteSecurityGroupOutput struct{}

// DeleteSecurityGroup: Amazon EC2 API Reference, DeleteSecurityGroup
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DeleteSecurityGroup.html).
func (c *Client) DeleteSecurityGroup(ctx context.Context, in *DeleteSecurityGroupInput) (*DeleteSecurityGroupOutput, error) {
	f := newForm()
	f.str("GroupId", in.GroupId)
	return call[DeleteSecurityGroupOutput](ctx, c, "DeleteSecurityGroup", f)
}

// AuthorizeSecurityGroupIngressInput adds inbound rules to a group.
type AuthorizeSecurityGroupIngressInput struct {
	GroupId       *string
	IpPermissions []IpPermission
}

// AuthorizeSecurityGroupIngressOutput is an accepted change.
type AuthorizeSecurityGroupIngressOutput struct{}

// AuthorizeSecurityGroupIngress: Amazon EC2 API Reference,
// AuthorizeSecurityGroupIngress
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_AuthorizeSecurityGroupIngress.html).
func (c *Client) AuthorizeSecurityGroupIngress(ctx context.Context, in *AuthorizeSecurityGroupIngressInput) (*AuthorizeSecurityGroupIngressOutput, error) {
	return call[AuthorizeSecurityGroupIngressOutput](ctx, c, "AuthorizeSecurityGroupIngress", ruleForm(in.GroupId, in.IpPermissions))
}

// AuthorizeSecurityGroupEgressInput adds outbound rules to a group.
type AuthorizeSecurityGroupEgressInput struct {
	GroupId       *string
	IpPermissions []IpPermission
}

// AuthorizeSecurityGroupEgressOutput is an accepted change.
type AuthorizeSecurityGroupEgressOutput struct{}

// AuthorizeSecurityGroupEgress: Amazon EC2 API Reference,
// AuthorizeSecurityGroupEgress
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_AuthorizeSecurityGroupEgress.html).
func (c *Client) AuthorizeSecurityGroupEgress(ctx context.Context, in *AuthorizeSecurityGroupEgressInput) (*AuthorizeSecurityGroupEgressOutput, error) {
	return call[AuthorizeSecurityGroupEgressOutput](ctx, c, "AuthorizeSecurityGroupEgress", ruleForm(in.GroupId, in.IpPermissions))
}

// RevokeSecurityGroupIngressInput removes inbound rules from a group.
type RevokeSecurityGroupIngressInput struct {
	GroupId       *string
	IpPermissions []IpPermission
}

// RevokeSecurityGroupIngressOutput is an accepted change.
type RevokeSecurityGroupIngressOutput struct{}

// RevokeSecurityGroupIngress: Amazon EC2 API Reference,
// RevokeSecurityGroupIngress
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_RevokeSecurityGroupIngress.html).
func (c *Client) RevokeSecurityGroupIngress(ctx context.Context, in *RevokeSecurityGroupIngressInput) (*RevokeSecurityGroupIngressOutput, error) {
	return call[RevokeSecurityGroupIngressOutput](ctx, c, "RevokeSecurityGroupIngress", ruleForm(in.GroupId, in.IpPermissions))
}

// RevokeSecurityGroupEgressInput removes outbound rules from a group.
type RevokeSecurityGroupEgressInput struct {
	GroupId       *string
	IpPermissions []IpPermission
}

// RevokeSecurityGroupEgressOutput is an accepted change.
type RevokeSecurityGroupEgressOutput struct{}

// RevokeSecurityGroupEgress: Amazon EC2 API Reference,
// RevokeSecurityGroupEgress
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_RevokeSecurityGroupEgress.html).
func (c *Client) RevokeSecurityGroupEgress(ctx context.Context, in *RevokeSecurityGroupEgressInput) (*RevokeSecurityGroupEgressOutput, error) {
	return call[RevokeSecurityGroupEgressOutput](ctx, c, "RevokeSecurityGroupEgress", ruleForm(in.GroupId, in.IpPermissions))
}

// ruleForm is the parameters the four rule actions share: GroupId and
// IpPermissions.
func ruleForm(group *string, perms []IpPermission) form {
	f := newForm()
	f.str("GroupId", group)
	f.perms(perms)
	return f
}
