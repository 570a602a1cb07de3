package ec2api

import "context"

// RunInstancesInput launches instances of an image into a subnet.
// UserData is sent as given: the caller base64-encodes it, as the API
// requires.
type RunInstancesInput struct {
	ImageId           *string
	InstanceType      InstanceType
	MinCount          *int32
	MaxCount          *int32
	SubnetId          *string
	SecurityGroupIds  []string
	KeyName           *string
	UserData          *string
	ClientToken       *string
	TagSpecifications []TagSpecification
}

// RunInstancesOutput is the reservation made.
type RunInstancesOutput struct {
	Instances []Instance `xml:"instancesSet>item"`
}

// RunInstances: Amazon EC2 API Reference, RunInstances
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_RunInstances.html).
func (c *Client) RunInstances(ctx context.Context, in *RunInstancesInput) (*RunInstancesOutput, error) {
	f := newForm()
	f.str("ImageId", in.ImageId)
	if in.InstanceType != "" {
		f.v.Set("InstanceType", string(in.InstanceType))
	}
	f.int32("MinCount", in.MinCount)
	f.int32("MaxCount", in.MaxCount)
	f.str("SubnetId", in.SubnetId)
	f.strs("SecurityGroupId", in.SecurityGroupIds)
	f.str("KeyName", in.KeyName)
	f.str("UserData", in.UserData)
	f.str("ClientToken", in.ClientToken)
	f.tagSpecs(in.TagSpecifications)
	return call[RunInstancesOutput](ctx, c, "RunInstances", f)
}

// DescribeInstancesInput lists instances by ID and filters, one page from
// NextToken.
type DescribeInstancesInput struct {
	InstanceIds []string
	Filters     []Filter
	NextToken   *string
}

// DescribeInstancesOutput is one page of reservations; NextToken is empty
// on the last.
type DescribeInstancesOutput struct {
	Reservations []Reservation `xml:"reservationSet>item"`
	NextToken    *string       `xml:"nextToken"`
}

// DescribeInstances: Amazon EC2 API Reference, DescribeInstances
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInstances.html).
func (c *Client) DescribeInstances(ctx context.Context, in *DescribeInstancesInput) (*DescribeInstancesOutput, error) {
	f := newForm()
	f.strs("InstanceId", in.InstanceIds)
	f.filters(in.Filters)
	f.str("NextToken", in.NextToken)
	return call[DescribeInstancesOutput](ctx, c, "DescribeInstances", f)
}

// TerminateInstancesInput terminates instances.
type TerminateInstancesInput struct{ InstanceIds []string }

// TerminateInstancesOutput is an accepted change.
type TerminateInstancesOutput struct{}

// TerminateInstances: Amazon EC2 API Reference, TerminateInstances
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_TerminateInstances.html).
func (c *Client) TerminateInstances(ctx context.Context, in *TerminateInstancesInput) (*TerminateInstancesOutput, error) {
	f := newForm()
	f.strs("InstanceId", in.InstanceIds)
	return call[TerminateInstancesOutput](ctx, c, "TerminateInstances", f)
}

// StopInstancesInput stops running instances.
type StopInstancesInput struct{ InstanceIds []string }

// StopInstancesOutput is an accepted change.
type StopInstancesOutput struct{}

// StopInstances: Amazon EC2 API Reference, StopInstances
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_StopInstances.html).
func (c *Client) StopInstances(ctx context.Context, in *StopInstancesInput) (*StopInstancesOutput, error) {
	f := newForm()
	f.strs("InstanceId", in.InstanceIds)
	return call[StopInstancesOutput](ctx, c, "StopInstances", f)
}

// StartInstancesInput starts stopped instances.
type StartInstancesInput struct{ InstanceIds []string }

// StartInstancesOutput is an accepted change.
type StartInstancesOutput struct{}

// StartInstances: Amazon EC2 API Reference, StartInstances
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_StartInstances.html).
func (c *Client) StartInstances(ctx context.Context, in *StartInstancesInput) (*StartInstancesOutput, error) {
	f := newForm()
	f.strs("InstanceId", in.InstanceIds)
	return call[StartInstancesOutput](ctx, c, "StartInstances", f)
}

// ModifyInstanceAttributeInput changes one attribute of an instance: its
// type (stopped only) or its security groups (Groups replaces them).
type ModifyInstanceAttributeInput struct {
	InstanceId   *string
	InstanceType *AttributeValue
	Groups       []string
}

// ModifyInstanceAttributeOutput is an accepted change.
type ModifyInstanceAttributeOutput struct{}

// ModifyInstanceAttribute: Amazon EC2 API Reference,
// ModifyInstanceAttribute
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_ModifyInstanceAttribute.html);
// Groups is sent as GroupId.N.
func (c *Client) ModifyInstanceAttribute(ctx context.Context, in *ModifyInstanceAttributeInput) (*ModifyInstanceAttributeOutput, error) {
	f := newForm()
	f.str("InstanceId", in.InstanceId)
	if in.InstanceType != nil {
		f.str("InstanceType.Value", in.InstanceType.Value)
	}
	f.strs("GroupId", in.Groups)
	return call[ModifyInstanceAttributeOutput](ctx, c, "ModifyInstanceAttribute", f)
}
