package ec2api

import "context"

// CreateSubnetInput creates a subnet of a VPC in a zone, tagged.
type CreateSubnetInput struct {
	VpcId             *string
	CidrBlock         *string
	AvailabilityZone  *string
	TagSpecifications []TagSpecification
}

// CreateSubnetOutput is the subnet made.
type CreateSubnetOutput struct {
	Subnet *Subnet `xml:"subnet"`
}

// CreateSubnet: Amazon EC2 API Reference, CreateSubnet
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CreateSubnet.html).
func (c *Client) CreateSubnet(ctx context.Context, in *CreateSubnetInput) (*CreateSubnetOutput, error) {
	f := newForm()
	f.str("VpcId", in.VpcId)
	f.str("CidrBlock", in.CidrBlock)
	f.str("AvailabilityZone", in.AvailabilityZone)
	f.tagSpecs(in.TagSpecifications)
	return call[CreateSubnetOutput](ctx, c, "CreateSubnet", f)
}

// DescribeSubnetsInput lists subnets by ID and filters, one page from
// NextToken.
type DescribeSubnetsInput struct {
	SubnetIds []string
	Filters   []Filter
	NextToken *string
}

// DescribeSubnetsOutput is one page; NextToken is empty on the last.
type DescribeSubnetsOutput struct {
	Subnets   []Subnet `xml:"subnetSet>item"`
	NextToken *string  `xml:"nextToken"`
}

// DescribeSubnets: Amazon EC2 API Reference, DescribeSubnets
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeSubnets.html).
func (c *Client) DescribeSubnets(ctx context.Context, in *DescribeSubnetsInput) (*DescribeSubnetsOutput, error) {
	f := newForm()
	f.strs("SubnetId", in.SubnetIds)
	f.filters(in.Filters)
	f.str("NextToken", in.NextToken)
	return call[DescribeSubnetsOutput](ctx, c, "DescribeSubnets", f)
}

// ModifySubnetAttributeInput sets whether instances launched in the
// subnet get a public IPv4 address.
type ModifySubnetAttributeInput struct {
	SubnetId            *string
	MapPublicIpOnLaunch *AttributeBooleanValue
}

// ModifySubnetAttributeOutput is an accepted change.
type ModifySubnetAttributeOutput struct{}

// ModifySubnetAttribute: Amazon EC2 API Reference, ModifySubnetAttribute
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_ModifySubnetAttribute.html).
func (c *Client) ModifySubnetAttribute(ctx context.Context, in *ModifySubnetAttributeInput) (*ModifySubnetAttributeOutput, error) {
	f := newForm()
	f.str("SubnetId", in.SubnetId)
	if in.MapPublicIpOnLaunch != nil {
		f.boolean("MapPublicIpOnLaunch.Value", in.MapPublicIpOnLaunch.Value)
	}
	return call[ModifySubnetAttributeOutput](ctx, c, "ModifySubnetAttribute", f)
}

// DeleteSubnetInput deletes a subnet.
type DeleteSubnetInput struct{ SubnetId *string }

// DeleteSubnetOutput is an accepted delete.
type DeleteSubnetOutput struct{}

// DeleteSubnet: Amazon EC2 API Reference, DeleteSubnet
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DeleteSubnet.html).
func (c *Client) DeleteSubnet(ctx context.Context, in *DeleteSubnetInput) (*DeleteSubnetOutput, error) {
	f := newForm()
	f.str("SubnetId", in.SubnetId)
	return call[DeleteSubnetOutput](ctx, c, "DeleteSubnet", f)
}

// CreateRouteTableInput creates a route table of a VPC, tagged.
type CreateRouteTableInput struct {
	VpcId             *string
	TagSpecifications []TagSpecification
}

// CreateRouteTableOutput is the route table made.
type CreateRouteTableOutput struct {
	RouteTable *RouteTable `xml:"routeTable"`
}

// CreateRouteTable: Amazon EC2 API Reference, CreateRouteTable
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CreateRouteTable.html).
func (c *Client) CreateRouteTable(ctx context.Context, in *CreateRouteTableInput) (*CreateRouteTableOutput, error) {
	f := newForm()
	f.str("VpcId", in.VpcId)
	f.tagSpecs(in.TagSpecifications)
	return call[CreateRouteTableOutput](ctx, c, "CreateRouteTable", f)
}

// CreateRouteInput routes a destination block to a gateway.
type CreateRouteInput struct {
	RouteTableId         *string
	DestinationCidrBlock *string
	GatewayId            *string
}

// CreateRouteOutput is an accepted route.
type CreateRouteOutput struct{}

// CreateRoute: Amazon EC2 API Reference, CreateRoute
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CreateRoute.html).
func (c *Client) CreateRoute(ctx context.Context, in *CreateRouteInput) (*CreateRouteOutput, error) {
	f := newForm()
	f.str("RouteTableId", in.RouteTableId)
	f.str("DestinationCidrBlock", in.DestinationCidrBlock)
	f.str("GatewayId", in.GatewayId)
	return call[CreateRouteOutput](ctx, c, "CreateRoute", f)
}

// AssociateRouteTableInput makes a route table a subnet's.
type AssociateRouteTableInput struct {
	RouteTableId *string
	SubnetId     *string
}

// AssociateRouteTableOutput is an accepted association.
type AssociateRouteTableOutput struct{}

// AssociateRouteTable: Amazon EC2 API Reference, AssociateRouteTable
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_AssociateRouteTable.html).
func (c *Client) AssociateRouteTable(ctx context.Context, in *AssociateRouteTableInput) (*AssociateRouteTableOutput, error) {
	f := newForm()
	f.str("RouteTableId", in.RouteTableId)
	f.str("SubnetId", in.SubnetId)
	return call[AssociateRouteTableOutput](ctx, c, "AssociateRouteTable", f)
}

// DisassociateRouteTableInput ends an association.
type DisassociateRouteTableInput struct{ AssociationId *string }

// DisassociateRouteTableOutput is an accepted disassociation.
type DisassociateRouteTableOutput struct{}

// DisassociateRouteTable: Amazon EC2 API Reference,
// DisassociateRouteTable
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DisassociateRouteTable.html).
func (c *Client) DisassociateRouteTable(ctx context.Context, in *DisassociateRouteTableInput) (*DisassociateRouteTableOutput, error) {
	f := newForm()
	f.str("AssociationId", in.AssociationId)
	return call[DisassociateRouteTableOutput](ctx, c, "DisassociateRouteTable", f)
}

// DescribeRouteTablesInput lists route tables by filters, one page from
// NextToken.
type DescribeRouteTablesInput struct {
	Filters   []Filter
	NextToken *string
}

// DescribeRouteTablesOutput is one page; NextToken is empty on the last.
type DescribeRouteTablesOutput struct {
	RouteTables []RouteTable `xml:"routeTableSet>item"`
	NextToken   *string      `xml:"nextToken"`
}

// DescribeRouteTables: Amazon EC2 API Reference, DescribeRouteTables
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeRouteTables.html).
func (c *Client) DescribeRouteTables(ctx context.Context, in *DescribeRouteTablesInput) (*DescribeRouteTablesOutput, error) {
	f := newForm()
	f.filters(in.Filters)
	f.str("NextToken", in.NextToken)
	return call[DescribeRouteTablesOutput](ctx, c, "DescribeRouteTables", f)
}

// DeleteRouteTableInput deletes a route table without associations.
type DeleteRouteTableInput struct{ RouteTableId *string }

// DeleteRouteTableOutput is an accepted delete.
type DeleteRouteTableOutput struct{}

// DeleteRouteTable: Amazon EC2 API Reference, DeleteRouteTable
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DeleteRouteTable.html).
func (c *Client) DeleteRouteTable(ctx context.Context, in *DeleteRouteTableInput) (*DeleteRouteTableOutput, error) {
	f := newForm()
	f.str("RouteTableId", in.RouteTableId)
	return call[DeleteRouteTableOutput](ctx, c, "DeleteRouteTable", f)
}

// DescribeNetworkInterfacesInput lists network interfaces by filters, one
// page from NextToken.
type DescribeNetworkInterfacesInput struct {
	Filters   []Filter
	NextToken *string
}

// DescribeNetworkInterfacesOutput is one page; NextToken is empty on the
// last.
type DescribeNetworkInterfacesOutput struct {
	NetworkInterfaces []NetworkInterface `xml:"networkInterfaceSet>item"`
	NextToken         *string            `xml:"nextToken"`
}

// DescribeNetworkInterfaces: Amazon EC2 API Reference,
// DescribeNetworkInterfaces
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeNetworkInterfaces.html).
func (c *Client) DescribeNetworkInterfaces(ctx context.Context, in *DescribeNetworkInterfacesInput) (*DescribeNetworkInterfacesOutput, error) {
	f := newForm()
	f.filters(in.Filters)
	f.str("NextToken", in.NextToken)
	return call[DescribeNetworkInterfacesOutput](ctx, c, "DescribeNetworkInterfaces", f)
}
