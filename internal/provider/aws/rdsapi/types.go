package rdsapi

import "time"

// SourceType is the kind of resource an event is about.
type SourceType string

// SourceTypeDbInstance: a DB instance.
const SourceTypeDbInstance SourceType = "db-instance"

// Tag is a resource tag.
type Tag struct {
	Key   *string `xml:"Key"`
	Value *string `xml:"Value"`
}

// Filter narrows a Describe: Name is the filter ("db-instance-id"),
// Values what it matches.
type Filter struct {
	Name   *string
	Values []string
}

// DBInstance is what Kyku reads of a DB instance (Amazon RDS API
// Reference, DBInstance).
type DBInstance struct {
	DBInstanceIdentifier  *string                      `xml:"DBInstanceIdentifier"`
	DBInstanceArn         *string                      `xml:"DBInstanceArn"`
	DBInstanceClass       *string                      `xml:"DBInstanceClass"`
	DBInstanceStatus      *string                      `xml:"DBInstanceStatus"`
	Engine                *string                      `xml:"Engine"`
	EngineVersion         *string                      `xml:"EngineVersion"`
	AllocatedStorage      *int32                       `xml:"AllocatedStorage"`
	DBSubnetGroup         *DBSubnetGroup               `xml:"DBSubnetGroup"`
	VpcSecurityGroups     []VpcSecurityGroupMembership `xml:"VpcSecurityGroups>VpcSecurityGroupMembership"`
	TagList               []Tag                        `xml:"TagList>Tag"`
	Endpoint              *Endpoint                    `xml:"Endpoint"`
	MasterUserSecret      *MasterUserSecret            `xml:"MasterUserSecret"`
	PendingModifiedValues *PendingModifiedValues       `xml:"PendingModifiedValues"`
}

// DBSubnetGroup is a DB subnet group, alone or in a DBInstance.
type DBSubnetGroup struct {
	DBSubnetGroupName *string  `xml:"DBSubnetGroupName"`
	VpcId             *string  `xml:"VpcId"`
	Subnets           []Subnet `xml:"Subnets>Subnet"`
}

// Subnet is a subnet of a DB subnet group.
type Subnet struct {
	SubnetIdentifier *string `xml:"SubnetIdentifier"`
}

// VpcSecurityGroupMembership is a security group of a DB instance.
type VpcSecurityGroupMembership struct {
	VpcSecurityGroupId *string `xml:"VpcSecurityGroupId"`
}

// Endpoint is where a DB instance answers.
type Endpoint struct {
	Address *string `xml:"Address"`
	Port    *int32  `xml:"Port"`
}

// MasterUserSecret is the Secrets Manager secret of an AWS-managed master
// password.
type MasterUserSecret struct {
	SecretArn *string `xml:"SecretArn"`
}

// PendingModifiedValues is what a modification will change and has not
// yet.
type PendingModifiedValues struct {
	DBInstanceClass  *string `xml:"DBInstanceClass"`
	AllocatedStorage *int32  `xml:"AllocatedStorage"`
	EngineVersion    *string `xml:"EngineVersion"`
	StorageType      *string `xml:"StorageType"`
	Iops             *int32  `xml:"Iops"`
	MultiAZ          *bool   `xml:"MultiAZ"`
}

// Event is an RDS event.
type Event struct {
	Message *string    `xml:"Message"`
	Date    *time.Time `xml:"Date"`
}
