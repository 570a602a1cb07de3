package rdsapi

import (
	"context"
	"net/url"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

// CreateDBInstanceInput is what Kyku sends to create a DB instance: never
// a password (ManageMasterUserPassword has RDS keep it in Secrets
// Manager).
type CreateDBInstanceInput struct {
	DBInstanceIdentifier     *string
	DBInstanceClass          *string
	Engine                   *string
	EngineVersion            *string
	AllocatedStorage         *int32
	DBSubnetGroupName        *string
	MasterUsername           *string
	ManageMasterUserPassword *bool
	PubliclyAccessible       *bool
	VpcSecurityGroupIds      []string
	Tags                     []Tag
}

// CreateDBInstance (Amazon RDS API Reference,
// https://docs.aws.amazon.com/AmazonRDS/latest/APIReference/API_CreateDBInstance.html).
func (c *Client) CreateDBInstance(ctx context.Context, in *CreateDBInstanceInput) error {
	p := url.Values{}
	awswire.SetString(p, "DBInstanceIdentifier", in.DBInstanceIdentifier)
	awswire.SetString(p, "DBInstanceClass", in.DBInstanceClass)
	awswire.SetString(p, "Engine", in.Engine)
	awswire.SetString(p, "EngineVersion", in.EngineVersion)
	awswire.SetInt32(p, "AllocatedStorage", in.AllocatedStorage)
	awswire.SetString(p, "DBSubnetGroupName", in.DBSubnetGroupName)
	awswire.SetString(p, "MasterUsername", in.MasterUsername)
	awswire.SetBool(p, "ManageMasterUserPassword", in.ManageMasterUserPassword)
	awswire.SetBool(p, "PubliclyAccessible", in.PubliclyAccessible)
	awswire.SetList(p, "VpcSecurityGroupIds", "VpcSecurityGroupId", in.VpcSecurityGroupIds)
	setTags(p, in.Tags)
	return c.wire.Query(ctx, "CreateDBInstance", p, nil)
}

// DescribeDBInstancesInput selects DB instances by identifier (an error
// when it does not exist) or by filter (missing ones are left out), a
// page at a time.
type DescribeDBInstancesInput struct {
	DBInstanceIdentifier *string
	Filters              []Filter
	Marker               *string
}

// DescribeDBInstancesOutput is one page; Marker is empty on the last.
type DescribeDBInstancesOutput struct {
	DBInstances []DBInstance `xml:"DescribeDBInstancesResult>DBInstances>DBInstance"`
	Marker      *string      `xml:"DescribeDBInstancesResult>Marker"`
}

// DescribeDBInstances (Amazon RDS API Reference,
// https://docs.aws.amazon.com/AmazonRDS/latest/APIReference/API_DescribeDBInstances.html).
func (c *Client) DescribeDBInstances(ctx context.Context, in *DescribeDBInstancesInput) (*DescribeDBInstancesOutput, error) {
	p := url.Values{}
	awswire.SetString(p, "DBInstanceIdentifier", in.DBInstanceIdentifier)
	awswire.SetStructs(p, "Filters", "Filter", in.Filters, func(pre string, f Filter) {
		awswire.SetString(p, pre+".Name", f.Name)
		awswire.SetList(p, pre+".Values", "Value", f.Values)
	})
	awswire.SetString(p, "Marker", in.Marker)
	return awswire.QueryAnswer[DescribeDBInstancesOutput](ctx, c.wire, "DescribeDBInstances", p)
}

// ModifyDBInstanceInput is what Kyku changes of a DB instance; nil fields
// stay as they are.
type ModifyDBInstanceInput struct {
	DBInstanceIdentifier     *string
	ApplyImmediately         *bool
	DBInstanceClass          *string
	AllocatedStorage         *int32
	EngineVersion            *string
	AllowMajorVersionUpgrade *bool
	VpcSecurityGroupIds      []string
}

// ModifyDBInstance (Amazon RDS API Reference,
// https://docs.aws.amazon.com/AmazonRDS/latest/APIReference/API_ModifyDBInstance.html).
func (c *Client) ModifyDBInstance(ctx context.Context, in *ModifyDBInstanceInput) error {
	p := url.Values{}
	awswire.SetString(p, "DBInstanceIdentifier", in.DBInstanceIdentifier)
	awswire.SetBool(p, "ApplyImmediately", in.ApplyImmediately)
	awswire.SetString(p, "DBInstanceClass", in.DBInstanceClass)
	awswire.SetInt32(p, "AllocatedStorage", in.AllocatedStorage)
	awswire.SetString(p, "EngineVersion", in.EngineVersion)
	awswire.SetBool(p, "AllowMajorVersionUpgrade", in.AllowMajorVersionUpgrade)
	awswire.SetList(p, "VpcSecurityGroupIds", "VpcSecurityGroupId", in.VpcSecurityGroupIds)
	return c.wire.Query(ctx, "ModifyDBInstance", p, nil)
}

// DeleteDBInstanceInput is how Kyku deletes a DB instance.
type DeleteDBInstanceInput struct {
	DBInstanceIdentifier   *string
	SkipFinalSnapshot      *bool
	DeleteAutomatedBackups *bool
}

// DeleteDBInstance (Amazon RDS API Reference,
// https://docs.aws.amazon.com/AmazonRDS/latest/APIReference/API_DeleteDBInstance.html).
func (c *Client) DeleteDBInstance(ctx context.Context, in *DeleteDBInstanceInput) error {
	p := url.Values{}
	awswire.SetString(p, "DBInstanceIdentifier", in.DBInstanceIdentifier)
	awswire.SetBool(p, "SkipFinalSnapshot", in.SkipFinalSnapshot)
	awswire.SetBool(p, "DeleteAutomatedBackups", in.DeleteAutomatedBackups)
	return c.wire.Query(ctx, "DeleteDBInstance", p, nil)
}
