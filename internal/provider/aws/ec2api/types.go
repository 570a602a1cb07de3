package ec2api

// Filter narrows a Describe to objects whose Name field has one of Values
// (Amazon EC2 API Reference, Filter).
type Filter struct {
	Name   *string
	Values []string
}

// Tag is one tag of an EC2 object. A DeleteTags tag without a Value
// removes the key whatever its value (Amazon EC2 API Reference, Tag).
type Tag struct {
	Key   *string `xml:"key"`
	Value *string `xml:"value"`
}

// ResourceType names what a TagSpecification tags.
type ResourceType string

// The resource types Kyku tags at creation.
const (
	ResourceTypeVpc             ResourceType = "vpc"
	ResourceTypeSubnet          ResourceType = "subnet"
	ResourceTypeInternetGateway ResourceType = "internet-gateway"
	ResourceTypeRouteTable      ResourceType = "route-table"
	ResourceTypeSecurityGroup   ResourceType = "security-group"
	ResourceTypeKeyPair         ResourceType = "key-pair"
	ResourceTypeInstance        ResourceType = "instance"
)

// TagSpecification tags an object as it is created (Amazon EC2 API
// Reference, TagSpecification).
type TagSpecification struct {
	ResourceType ResourceType
	Tags         []Tag
}

// AttributeValue is a string attribute to set.
type AttributeValue struct{ Value *string }

// AttributeBooleanValue is a boolean attribute to set.
type AttributeBooleanValue struct{ Value *bool }

// Vpc is what Kyku reads of a VPC (Amazon EC2 API Reference, Vpc).
type Vpc struct {
	VpcId     *string `xml:"vpcId"`
	CidrBlock *string `xml:"cidrBlock"`
	Tags      []Tag   `xml:"tagSet>item"`
}

// Subnet is what Kyku reads of a subnet (Amazon EC2 API Reference,
// Subnet).
type Subnet struct {
	SubnetId            *string `xml:"subnetId"`
	VpcId               *string `xml:"vpcId"`
	CidrBlock           *string `xml:"cidrBlock"`
	AvailabilityZone    *string `xml:"availabilityZone"`
	MapPublicIpOnLaunch *bool   `xml:"mapPublicIpOnLaunch"`
	Tags                []Tag   `xml:"tagSet>item"`
}

// InternetGateway is what Kyku reads of an internet gateway (Amazon EC2
// API Reference, InternetGateway).
type InternetGateway struct {
	InternetGatewayId *string                     `xml:"internetGatewayId"`
	Attachments       []InternetGatewayAttachment `xml:"attachmentSet>item"`
	Tags              []Tag                       `xml:"tagSet>item"`
}

// InternetGatewayAttachment is a gateway's attachment to a VPC.
type InternetGatewayAttachment struct {
	VpcId *string `xml:"vpcId"`
}

// RouteTable is what Kyku reads of a route table (Amazon EC2 API
// Reference, RouteTable).
type RouteTable struct {
	RouteTableId *string                 `xml:"routeTableId"`
	Routes       []Route                 `xml:"routeSet>item"`
	Associations []RouteTableAssociation `xml:"associationSet>item"`
	Tags         []Tag                   `xml:"tagSet>item"`
}

// Route is one route of a route table.
type Route struct {
	DestinationCidrBlock *string `xml:"destinationCidrBlock"`
}

// RouteTableAssociation ties a route table to a subnet.
type RouteTableAssociation struct {
	RouteTableAssociationId *string `xml:"routeTableAssociationId"`
	SubnetId                *string `xml:"subnetId"`
}

// SecurityGroup is what Kyku reads of a security group (Amazon EC2 API
// Reference, SecurityGroup).
type SecurityGroup struct {
	GroupId             *string        `xml:"groupId"`
	VpcId               *string        `xml:"vpcId"`
	IpPermissions       []IpPermission `xml:"ipPermissions>item"`
	IpPermissionsEgress []IpPermission `xml:"ipPermissionsEgress>item"`
	Tags                []Tag          `xml:"tagSet>item"`
}

// IpPermission is one rule of a security group: a protocol, a port range
// (none for protocol -1) and the CIDR blocks it admits (Amazon EC2 API
// Reference, IpPermission).
type IpPermission struct {
	IpProtocol *string   `xml:"ipProtocol"`
	FromPort   *int32    `xml:"fromPort"`
	ToPort     *int32    `xml:"toPort"`
	IpRanges   []IpRange `xml:"ipRanges>item"`
}

// IpRange is one IPv4 CIDR block of a rule.
type IpRange struct {
	CidrIp *string `xml:"cidrIp"`
}

// KeyPairInfo is what Kyku reads of a key pair (Amazon EC2 API Reference,
// KeyPairInfo).
type KeyPairInfo struct {
	KeyPairId *string `xml:"keyPairId"`
	KeyName   *string `xml:"keyName"`
	PublicKey *string `xml:"publicKey"`
	Tags      []Tag   `xml:"tagSet>item"`
}

// InstanceType is an EC2 instance type ("t3.small").
type InstanceType string

// InstanceStateName is where an instance is in its life cycle.
type InstanceStateName string

// The instance states (Amazon EC2 API Reference, InstanceState).
const (
	InstanceStateNamePending      InstanceStateName = "pending"
	InstanceStateNameRunning      InstanceStateName = "running"
	InstanceStateNameShuttingDown InstanceStateName = "shutting-down"
	InstanceStateNameTerminated   InstanceStateName = "terminated"
	InstanceStateNameStopping     InstanceStateName = "stopping"
	InstanceStateNameStopped      InstanceStateName = "stopped"
)

// Instance is what Kyku reads of an instance (Amazon EC2 API Reference,
// Instance).
type Instance struct {
	InstanceId       *string           `xml:"instanceId"`
	ImageId          *string           `xml:"imageId"`
	InstanceType     InstanceType      `xml:"instanceType"`
	State            *InstanceState    `xml:"instanceState"`
	StateReason      *StateReason      `xml:"stateReason"`
	SubnetId         *string           `xml:"subnetId"`
	VpcId            *string           `xml:"vpcId"`
	KeyName          *string           `xml:"keyName"`
	PrivateIpAddress *string           `xml:"privateIpAddress"`
	PublicIpAddress  *string           `xml:"ipAddress"`
	SecurityGroups   []GroupIdentifier `xml:"groupSet>item"`
	Tags             []Tag             `xml:"tagSet>item"`
}

// InstanceState is an instance's state.
type InstanceState struct {
	Name InstanceStateName `xml:"name"`
}

// StateReason says why an instance changed state (a launch that failed).
type StateReason struct {
	Code    *string `xml:"code"`
	Message *string `xml:"message"`
}

// GroupIdentifier names a security group of an instance.
type GroupIdentifier struct {
	GroupId *string `xml:"groupId"`
}

// Reservation is the instances one RunInstances started.
type Reservation struct {
	Instances []Instance `xml:"instancesSet>item"`
}

// NetworkInterface is what Kyku reads of a network interface (Amazon EC2
// API Reference, NetworkInterface).
type NetworkInterface struct {
	Description      *string `xml:"description"`
	RequesterManaged *bool   `xml:"requesterManaged"`
}

// AvailabilityZone is what Kyku reads of a zone (Amazon EC2 API
// Reference, AvailabilityZone).
type AvailabilityZone struct {
	ZoneName *string `xml:"zoneName"`
	ZoneType *string `xml:"zoneType"`
}
