package aws

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/value"
)

// vmKind maps Vm to an EC2 instance. The requested size and image are kept
// in the kyku:size and kyku:image tags so Read reports them as written
// (an alias such as "debian-12" resolves to a different AMI every month).
type vmKind struct{ p *Provider }

const (
	tagSize  = "kyku:size"
	tagImage = "kyku:image"
)

// sizes maps Kyku's size aliases to instance types; anything with a dot
// (t3.micro, m7i.large) is taken as an instance type.
var sizes = map[string]string{"small": "t3.small", "medium": "t3.medium", "large": "t3.large"}

// images maps image aliases to the public SSM parameters holding the
// current AMI ID; "ami-…" is taken as is.
var images = map[string]string{
	"debian-12":         "/aws/service/debian/release/12/latest/amd64",
	"debian-13":         "/aws/service/debian/release/13/latest/amd64",
	"ubuntu-22.04":      "/aws/service/canonical/ubuntu/server/22.04/stable/current/amd64/hvm/ebs-gp2/ami-id",
	"ubuntu-24.04":      "/aws/service/canonical/ubuntu/server/24.04/stable/current/amd64/hvm/ebs-gp3/ami-id",
	"amazon-linux-2023": "/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64",
}

func instanceType(size string) (string, error) {
	if t, ok := sizes[size]; ok {
		return t, nil
	}
	if strings.Contains(size, ".") {
		return size, nil
	}
	return "", fmt.Errorf("unknown size %q (use small, medium, large or an instance type such as t3.micro)", size)
}

func (p *Provider) resolveImage(ctx context.Context, image string) (string, error) {
	if strings.HasPrefix(image, "ami-") {
		return image, nil
	}
	param, ok := images[image]
	if !ok {
		return "", fmt.Errorf("unknown image %q (use debian-12, debian-13, ubuntu-22.04, ubuntu-24.04, amazon-linux-2023 or an ami- ID)", image)
	}
	var out *ssm.GetParameterOutput
	err := p.call(ctx, "resolve image "+image, plain, func(ctx context.Context) (err error) {
		out, err = p.ssm.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(param)})
		return err
	})
	if err != nil {
		return "", err
	}
	return aws.ToString(out.Parameter.Value), nil
}

var liveStates = []string{"pending", "running", "stopping", "stopped"}

func (k vmKind) describe(ctx context.Context, m mode, in *ec2.DescribeInstancesInput, what string) (ec2types.Instance, error) {
	var out *ec2.DescribeInstancesOutput
	err := k.p.call(ctx, "describe instances", m, func(ctx context.Context) (err error) {
		out, err = k.p.ec2.DescribeInstances(ctx, in)
		return err
	})
	if err != nil {
		return ec2types.Instance{}, err
	}
	for _, r := range out.Reservations {
		for _, in := range r.Instances {
			if in.State != nil && in.State.Name != ec2types.InstanceStateNameTerminated {
				return in, nil
			}
		}
	}
	return ec2types.Instance{}, gone("instance " + what)
}

func (k vmKind) object(ctx context.Context, in ec2types.Instance) (provider.Object, error) {
	tags := fromEC2Tags(in.Tags)
	props := map[string]any{
		"network": aws.ToString(in.VpcId),
		"subnet":  aws.ToString(in.SubnetId),
		"size":    string(in.InstanceType),
		"image":   aws.ToString(in.ImageId),
	}
	if t, err := instanceType(tags[tagSize]); err == nil && t == string(in.InstanceType) {
		props["size"] = tags[tagSize]
	}
	if img := tags[tagImage]; img != "" {
		props["image"] = img
	}
	var groups []string
	for _, g := range in.SecurityGroups {
		groups = append(groups, aws.ToString(g.GroupId))
	}
	if len(groups) > 0 {
		props["securityGroups"] = anys(sortedStrs(groups))
	}
	if name := aws.ToString(in.KeyName); name != "" {
		kp, err := keyKind(k).describe(ctx, &ec2.DescribeKeyPairsInput{KeyNames: []string{name}}, name)
		if err != nil && !isGone(err) {
			return provider.Object{}, err
		}
		if err == nil {
			props["sshKeys"] = []any{aws.ToString(kp.KeyPairId)}
		}
	}
	outputs := map[string]any{"privateIp": aws.ToString(in.PrivateIpAddress), "publicIp": aws.ToString(in.PublicIpAddress)}
	return object(aws.ToString(in.InstanceId), tags[tagNameAWS], setTags(props, tags), outputs), nil
}

func (k vmKind) lookup(ctx context.Context, name string) (provider.Object, error) {
	in, err := k.describe(ctx, plain, &ec2.DescribeInstancesInput{
		Filters: append(byName(name), filter("instance-state-name", liveStates...)),
	}, name)
	if err != nil {
		return provider.Object{}, err
	}
	return k.object(ctx, in)
}

func (k vmKind) read(ctx context.Context, id string) (provider.Object, error) {
	in, err := k.describe(ctx, plain, &ec2.DescribeInstancesInput{InstanceIds: []string{id}}, id)
	if err != nil {
		return provider.Object{}, err
	}
	return k.object(ctx, in)
}

// wait polls until the instance is in state want ("terminated" also
// accepts the instance being gone).
func (k vmKind) wait(ctx context.Context, id string, want ec2types.InstanceStateName) error {
	return k.p.poll(ctx, "instance "+id+" "+string(want), func(ctx context.Context) (bool, error) {
		var out *ec2.DescribeInstancesOutput
		err := k.p.call(ctx, "describe instances", settling, func(ctx context.Context) (err error) {
			out, err = k.p.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: []string{id}})
			return err
		})
		if err != nil {
			return false, err
		}
		for _, r := range out.Reservations {
			for _, in := range r.Instances {
				return in.State != nil && in.State.Name == want, nil
			}
		}
		return want == ec2types.InstanceStateNameTerminated, nil
	})
}

// subnetFor picks the Vm's subnet: its subnet property, else the first
// public Kyku subnet of its network.
func (k vmKind) subnetFor(ctx context.Context, r provider.Resource) (string, error) {
	if s := pstr(r.Properties, "subnet"); s != "" {
		return s, nil
	}
	vpc := pstr(r.Properties, "network")
	if vpc == "" {
		return "", fmt.Errorf("Vm %q needs a subnet or a network on aws", r.Name)
	}
	ss, err := subnetKind(k).describe(ctx, settling, &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{
		filter("vpc-id", vpc), filter("tag:"+tagManaged, "true"), filter("map-public-ip-on-launch", "true"),
	}})
	if err != nil {
		return "", err
	}
	if len(ss) == 0 {
		return "", fmt.Errorf("network %s has no public subnet for Vm %q", vpc, r.Name)
	}
	return aws.ToString(ss[0].SubnetId), nil
}

func (k vmKind) create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	if err := required(r, "image"); err != nil {
		return provider.Object{}, err
	}
	if obj, err := k.lookup(ctx, r.CloudName); err == nil || !isGone(err) {
		if err != nil {
			return provider.Object{}, err
		}
		if err := k.wait(ctx, obj.ID, ec2types.InstanceStateNameRunning); err != nil {
			return provider.Object{}, err
		}
		return k.read(ctx, obj.ID)
	}
	size := pstr(r.Properties, "size")
	if size == "" {
		size = "small"
	}
	typ, err := instanceType(size)
	if err != nil {
		return provider.Object{}, err
	}
	image := pstr(r.Properties, "image")
	ami, err := k.p.resolveImage(ctx, image)
	if err != nil {
		return provider.Object{}, err
	}
	subnet, err := k.subnetFor(ctx, r)
	if err != nil {
		return provider.Object{}, err
	}
	in := &ec2.RunInstancesInput{
		ImageId: aws.String(ami), InstanceType: ec2types.InstanceType(typ), MinCount: aws.Int32(1), MaxCount: aws.Int32(1),
		SubnetId: aws.String(subnet), SecurityGroupIds: pstrs(r.Properties, "securityGroups"),
		TagSpecifications: tagSpec(ec2types.ResourceTypeInstance, wantTags(r, map[string]string{tagSize: size, tagImage: image})),
	}
	if ud := pstr(r.Properties, "userData"); ud != "" {
		in.UserData = aws.String(base64(ud))
	}
	if keys := pstrs(r.Properties, "sshKeys"); len(keys) > 1 {
		return provider.Object{}, fmt.Errorf("an EC2 instance takes one key pair, got %d sshKeys", len(keys))
	} else if len(keys) == 1 {
		kp, err := keyKind(k).describe(ctx, &ec2.DescribeKeyPairsInput{KeyPairIds: keys}, keys[0])
		if err != nil {
			return provider.Object{}, err
		}
		in.KeyName = kp.KeyName
	}
	var out *ec2.RunInstancesOutput
	err = k.p.call(ctx, "run instance", settling, func(ctx context.Context) (err error) {
		out, err = k.p.ec2.RunInstances(ctx, in)
		return err
	})
	if err != nil {
		return provider.Object{}, err
	}
	id := aws.ToString(out.Instances[0].InstanceId)
	if err := k.wait(ctx, id, ec2types.InstanceStateNameRunning); err != nil {
		return provider.Object{}, err
	}
	return k.read(ctx, id)
}

func (k vmKind) update(ctx context.Context, id string, r provider.Resource, cur provider.Object) (provider.Object, error) {
	for _, name := range []string{"subnet", "network", "sshKeys"} {
		if want, ok := r.Properties[name]; ok && !value.Equal(want, cur.Properties[name]) {
			return provider.Object{}, fmt.Errorf("property %s of an EC2 instance cannot change in place", name)
		}
	}
	p := k.p
	in, err := k.describe(ctx, plain, &ec2.DescribeInstancesInput{InstanceIds: []string{id}}, id)
	if err != nil {
		return provider.Object{}, err
	}
	size := pstr(r.Properties, "size")
	if size == "" {
		size = "small"
	}
	typ, err := instanceType(size)
	if err != nil {
		return provider.Object{}, err
	}
	have := fromEC2Tags(in.Tags)
	want := wantTags(r, map[string]string{tagSize: size, tagImage: have[tagImage]})
	want[tagNameAWS] = have[tagNameAWS]
	if typ != string(in.InstanceType) {
		if err := k.resize(ctx, id, typ); err != nil {
			return provider.Object{}, err
		}
	}
	if err := p.syncEC2Tags(ctx, id, have, want); err != nil {
		return provider.Object{}, err
	}
	groups := pstrs(r.Properties, "securityGroups")
	if sg, ok := cur.Properties["securityGroups"]; len(groups) > 0 && !(ok && value.Equal(anys(sortedStrs(groups)), sg)) {
		err := p.call(ctx, "set instance security groups", settling, func(ctx context.Context) error {
			_, err := p.ec2.ModifyInstanceAttribute(ctx, &ec2.ModifyInstanceAttributeInput{InstanceId: aws.String(id), Groups: groups})
			return err
		})
		if err != nil {
			return provider.Object{}, err
		}
	}
	return k.read(ctx, id)
}

// resize stops the instance, changes its type and starts it again.
func (k vmKind) resize(ctx context.Context, id, typ string) error {
	p := k.p
	err := p.call(ctx, "stop instance", plain, func(ctx context.Context) error {
		_, err := p.ec2.StopInstances(ctx, &ec2.StopInstancesInput{InstanceIds: []string{id}})
		return err
	})
	if err != nil {
		return err
	}
	if err := k.wait(ctx, id, ec2types.InstanceStateNameStopped); err != nil {
		return err
	}
	err = p.call(ctx, "set instance type", plain, func(ctx context.Context) error {
		_, err := p.ec2.ModifyInstanceAttribute(ctx, &ec2.ModifyInstanceAttributeInput{
			InstanceId: aws.String(id), InstanceType: &ec2types.AttributeValue{Value: aws.String(typ)},
		})
		return err
	})
	if err != nil {
		return err
	}
	err = p.call(ctx, "start instance", plain, func(ctx context.Context) error {
		_, err := p.ec2.StartInstances(ctx, &ec2.StartInstancesInput{InstanceIds: []string{id}})
		return err
	})
	if err != nil {
		return err
	}
	return k.wait(ctx, id, ec2types.InstanceStateNameRunning)
}

func (k vmKind) delete(ctx context.Context, id string) error {
	if _, err := k.describe(ctx, plain, &ec2.DescribeInstancesInput{InstanceIds: []string{id}}, id); err != nil {
		return err
	}
	err := k.p.call(ctx, "terminate instance", plain, func(ctx context.Context) error {
		_, err := k.p.ec2.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: []string{id}})
		return err
	})
	if err != nil {
		return err
	}
	return k.wait(ctx, id, ec2types.InstanceStateNameTerminated)
}
