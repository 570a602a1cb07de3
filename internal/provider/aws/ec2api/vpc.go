package ec2api

import "context"

// CreateVpcInput creates a VPC with an IPv4 block, tagged.
type CreateVpcInput struct {
	CidrBlock         *string
	TagSpecifications []TagSpecification
}

// CreateVpcOutput is the VPC made.
type CreateVpcOutput struct {
	Vpc *Vpc `xml:"vpc"`
}

// CreateVpc: Amazon EC2 API Reference, CreateVpc
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CreateVpc.html).
func (c *Client) CreateVpc(ctx context.Context, in *CreateVpcInput) (*CreateVpcOutput, error) {
	f := newForm()
	f.str("CidrBlock", in.CidrBlock)
	f.tagSpecs(in.TagSpecifications)
	return call[CreateVpcOutput](ctx, c, "CreateVpc", f)
}

// DescribeVpcsInput lists VPCs by ID and filters, one page from NextToken.
type DescribeVpcsInput struct {
	VpcIds    []string
	Filters   []Filter
	NextToken *string
}

// DescribeVpcsOutput is one page; NextToken is empty on the last.
type DescribeVpcsOutput struct {
	Vpcs      []Vpc   `xml:"vpcSet>item"`
	NextToken *string `xml:"nextToken"`
}

// DescribeVpcs: Amazon EC2 API Reference, DescribeVpcs
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeVpcs.html).
func (c *Client) DescribeVpcs(ctx context.Context, in *DescribeVpcsInput) (*DescribeVpcsOutput, error) {
	f := newForm()
	f.strs("VpcId", in.VpcIds)
	f.filters(in.Filters)
	f.str("NextToken", in.NextToken)
	return call[DescribeVpcsOutput](ctx, c, "DescribeVpcs", f)
}

// DeleteVpcInput deletes a VPC.
type DeleteVpcInput struct{ VpcId *string }

// DeleteVpcOutput is an accepted delete.
type DeleteVpcOutput struct{}

// DeleteVpc: Amazon EC2 API Reference, DeleteVpc
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DeleteVpc.html).
func (c *Client) DeleteVpc(ctx context.Context, in *DeleteVpcInput) (*DeleteVpcOutput, error) {
	f := newForm()
	f.str("VpcId", in.VpcId)
	return call[DeleteVpcOutput](ctx, c, "DeleteVpc", f)
}

// CreateInternetGatewayInput creates a detached gateway, tagged.
type CreateInternetGatewayInput struct {
	TagSpecifications []TagSpecification
}

// CreateInternetGatewayOutput is the gateway made.
type CreateInternetGatewayOutput struct {
	InternetGateway *InternetGateway `xml:"internetGateway"`
}

// CreateInternetGateway: Amazon EC2 API Reference, CreateInternetGateway
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CreateInternetGateway.html).
func (c *Client) CreateInternetGateway(ctx context.Context, in *CreateInternetGatewayInput) (*CreateInternetGatewayOutput, error) {
	f := newForm()
	f.tagSpecs(in.TagSpecifications)
	return call[CreateInternetGatewayOutput](ctx, c, "CreateInternetGateway", f)
}

// AttachInternetGatewayInput attaches a gateway to a VPC.
type AttachInternetGatewayInput struct {
	InternetGatewayId *string
	VpcId             *string
}

// AttachInternetGatewayOutput is an accepted attachment.
type AttachInternetGatewayOutput struct{}

// AttachInternetGateway: Amazon EC2 API Reference, AttachInternetGateway
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_AttachInternetGateway.html).
func (c *Client) AttachInternetGateway(ctx context.Context, in *AttachInternetGatewayInput) (*AttachInternetGatewayOutput, error) {
	f := newForm()
	f.str("InternetGatewayId", in.InternetGatewayId)
	f.str("VpcId", in.VpcId)
	return call[AttachInternetGatewayOutput](ctx, c, "AttachInternetGateway", f)
}

// DetachInternetGatewayInput detaches a gateway from a VPC.
type DetachInternetGatewayInput struct {
	InternetGatewayId *string
	VpcId             *string
}

// DetachInternetGatewayOutput is an accepted detachment.
type DetachInternetGatewayOutput struct{}

// DetachInternetGateway: Amazon EC2 API Reference, DetachInternetGateway
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DetachInternetGateway.html).
func (c *Client) DetachInternetGateway(ctx context.Context, in *DetachInternetGatewayInput) (*DetachInternetGatewayOutput, error) {
	f := newForm()
	f.str("InternetGatewayId", in.InternetGatewayId)
	f.str("VpcId", in.VpcId)
	return call[DetachInternetGatewayOutput](ctx, c, "DetachInternetGateway", f)
}

// DeleteInternetGatewayInput deletes a detached gateway.
type DeleteInternetGatewayInput struct{ InternetGatewayId *string }

// DeleteInternetGatewayOutput is an accepted delete.
type DeleteInternetGatewayOutput struct{}

// DeleteInternetGateway: Amazon EC2 API Reference, DeleteInternetGateway
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DeleteInternetGateway.html).
func (c *Client) DeleteInternetGateway(ctx context.Context, in *DeleteInternetGatewayInput) (*DeleteInternetGatewayOutput, error) {
	f := newForm()
	f.str("InternetGatewayId", in.InternetGatewayId)
	return call[DeleteInternetGatewayOutput](ctx, c, "DeleteInternetGateway", f)
}

// DescribeInternetGatewaysInput lists gateways by filters, one page from
// NextToken.
type DescribeInternetGatewaysInput struct {
	Filters   []Filter
	NextToken *string
}

// DescribeInternetGatewaysOutput is one page; NextToken is empty on the
// last.
type DescribeInternetGatewaysOutput struct {
	InternetGateways []InternetGateway `xml:"internetGatewaySet>item"`
	NextToken        *string           `xml:"nextToken"`
}

// DescribeInternetGateways: Amazon EC2 API Reference,
// DescribeInternetGateways
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInternetGateways.html).
func (c *Client) DescribeInternetGateways(ctx context.Context, in *DescribeInternetGatewaysInput) (*DescribeInternetGatewaysOutput, error) {
	f := newForm()
	f.filters(in.Filters)
	f.str("NextToken", in.NextToken)
	return call[DescribeInternetGatewaysOutput](ctx, c, "DescribeInternetGateways", f)
}

// DescribeAvailabilityZonesInput lists the region's zones by filters.
type DescribeAvailabilityZonesInput struct {
	Filters []Filter
}

// DescribeAvailabilityZonesOutput is every matching zone (not paginated).
type DescribeAvailabilityZonesOutput struct {
	AvailabilityZones []AvailabilityZone `xml:"availabilityZoneInfo>item"`
}

// DescribeAvailabilityZones: Amazon EC2 API Reference,
// DescribeAvailabilityZones
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeAvailabilityZones.html).
func (c *Client) DescribeAvailabilityZones(ctx context.Context, in *DescribeAvailabilityZonesInput) (*DescribeAvailabilityZonesOutput, error) {
	f := newForm()
	f.filters(in.Filters)
	return call[DescribeAvailabilityZonesOutput](ctx, c, "DescribeAvailabilityZones", f)
}
