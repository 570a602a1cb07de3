package rdsapi

import (
	"context"
	"net/url"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

// CreateDBSubnetGroupInput is what Kyku sends to create a DB subnet group.
type CreateDBSubnetGroupInput struct {
	DBSubnetGroupName        *string
	DBSubnetGroupDescription *string
	SubnetIds                []string
	Tags                     []Tag
}

// CreateDBSubnetGroup (Amazon RDS API Reference,
// https://docs.aws.amazon.com/AmazonRDS/latest/APIReference/API_CreateDBSubnetGroup.html).
func (c *Client) CreateDBSubnetGroup(ctx context.Context, in *CreateDBSubnetGroupInput) error {
	p := url.Values{}
	awswire.SetString(p, "DBSubnetGroupName", in.DBSubnetGroupName)
	awswire.SetString(p, "DBSubnetGroupDescription", in.DBSubnetGroupDescription)
	awswire.SetList(p, "SubnetIds", "SubnetIdentifier", in.SubnetIds)
	setTags(p, in.Tags)
	return c.wire.Query(ctx, "CreateDBSubnetGroup", p, nil)
}

// ModifyDBSubnetGroupInput replaces a DB subnet group's subnets.
type ModifyDBSubnetGroupInput struct {
	DBSubnetGroupName *string
	SubnetIds         []string
}

// ModifyDBSubnetGroup (Amazon RDS API Reference,
// https://docs.aws.amazon.com/AmazonRDS/latest/APIReference/API_ModifyDBSubnetGroup.html).
func (c *Client) ModifyDBSubnetGroup(ctx context.Context, in *ModifyDBSubnetGroupInput) error {
	p := url.Values{}
	awswire.SetString(p, "DBSubnetGroupName", in.DBSubnetGroupName)
	awswire.SetList(p, "SubnetIds", "SubnetIdentifier", in.SubnetIds)
	return c.wire.Query(ctx, "ModifyDBSubnetGroup", p, nil)
}

// DescribeDBSubnetGroupsInput selects a DB subnet group by name, a page at
// a time.
type DescribeDBSubnetGroupsInput struct {
	DBSubnetGroupName *string
	Marker            *string
}

// DescribeDBSubnetGroupsOutput is one page; Marker is empty on the last.
type DescribeDBSubnetGroupsOutput struct {
	DBSubnetGroups []DBSubnetGroup `xml:"DescribeDBSubnetGroupsResult>DBSubnetGroups>DBSubnetGroup"`
	Marker         *string         `xml:"DescribeDBSubnetGroupsResult>Marker"`
}

// DescribeDBSubnetGroups (Amazon RDS API Reference,
// https://docs.aws.amazon.com/AmazonRDS/latest/APIReference/API_DescribeDBSubnetGroups.html).
func (c *Client) DescribeDBSubnetGroups(ctx context.Context, in *DescribeDBSubnetGroupsInput) (*DescribeDBSubnetGroupsOutput, error) {
	p := url.Values{}
	awswire.SetString(p, "DBSubnetGroupName", in.DBSubnetGroupName)
	awswire.SetString(p, "Marker", in.Marker)
	return awswire.QueryAnswer[DescribeDBSubnetGroupsOutput](ctx, c.wire, "DescribeDBSubnetGroups", p)
}

// DeleteDBSubnetGroupInput names the DB subnet group to delete.
type DeleteDBSubnetGroupInput struct {
	DBSubnetGroupName *string
}

// DeleteDBSubnetGroup (Amazon RDS API Reference,
// https://docs.aws.amazon.com/AmazonRDS/latest/APIReference/API_DeleteDBSubnetGroup.html).
func (c *Client) DeleteDBSubnetGroup(ctx context.Context, in *DeleteDBSubnetGroupInput) error {
	p := url.Values{}
	awswire.SetString(p, "DBSubnetGroupName", in.DBSubnetGroupName)
	return c.wire.Query(ctx, "DeleteDBSubnetGroup", p, nil)
}
