package aws

import (
	"context"
	"crypto/rand"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/kyku/action/internal/provider"
	ssm "github.com/kyku/action/internal/provider/aws/ssmapi"

	"github.com/kyku/action/internal/provider/aws/ec2api"
	"github.com/kyku/action/internal/provider/property"
	"github.com/kyku/action/internal/value"
)

// vmKind maps Vm to an EC2 instance. The requested size and image are kept
// in the kyku:size and kyku:image tags so Read reports them as written
// (an alias such as "debian-12" resolves to a different AMI every month).
type vmKind struct{ p *Provider }

const (
	tagSize     = "kyku:size"
	tagImage    = "kyku:image"
	tagResizing = "kyku:resizing" // set while a resize has the instance stopped
	// tagSubnet is "auto" when the config named no subnet and Kyku picked
	// one: Read then reports none, as the config has it.
	tagSubnet = "kyku:subnet"
)

// sizes maps Kyku's size aliases to instance types; anything with a dot
// (t3.micro, m7i.large) is taken as an instance type.
var sizes = sync.OnceValue(func() map[string]string {
	return map[string]string{"small": "t3.small", "medium": "t3.medium", "large": "t3.large"}
})

// images maps image aliases to the public SSM parameters holding the
// current AMI ID; "ami-…" is taken as is.
var images = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"debian-12":         "/aws/service/debian/release/12/latest/amd64",
		"debian-13":         "/aws/service/debian/release/13/latest/amd64",
		"ubuntu-22.04":      "/aws/service/canonical/ubuntu/server/22.04/stable/current/amd64/hvm/ebs-gp2/ami-id",
		"ubuntu-24.04":      "/aws/service/canonical/ubuntu/server/24.04/stable/current/amd64/hvm/ebs-gp3/ami-id",
		"amazon-linux-2023": "/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64",
	}
})

func instanceType(size string) (string, error) {
	if t, ok := sizes()[size]; ok {
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
	param, ok := images()[image]
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

// describe returns the first instance of in that is not terminated.
func (k vmKind) describe(ctx context.Context, m mode, in ec2api.DescribeInstancesInput, what string) (ec2api.Instance, error) {
	ins, err := k.p.instances(ctx, m, in)
	if err != nil {
		return ec2api.Instance{}, err
	}
	for _, in := range ins {
		if in.State != nil && in.State.Name != ec2api.InstanceStateNameTerminated {
			return in, nil
		}
	}
	return ec2api.Instance{}, provider.NotFound("instance " + what)
}

// keyIDs maps key pair names to their IDs, in one call for all of them (a
// filter, so a missing name is simply not in the map).
func (p *Provider) keyIDs(ctx context.Context, names []string) (map[string]string, error) {
	ids := map[string]string{}
	if len(names) == 0 {
		return ids, nil
	}
	var out *ec2api.DescribeKeyPairsOutput
	err := p.call(ctx, "describe key pairs", plain, func(ctx context.Context) (err error) {
		out, err = p.ec2.DescribeKeyPairs(ctx, &ec2api.DescribeKeyPairsInput{Filters: []ec2api.Filter{filter("key-name", names...)}})
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, kp := range out.KeyPairs {
		ids[aws.ToString(kp.KeyName)] = aws.ToString(kp.KeyPairId)
	}
	return ids, nil
}

// vmObject is an instance in Kyku's vocabulary; keyIDs resolves its key
// pair's name to the ID Kyku references it by.
func vmObject(in ec2api.Instance, keyIDs map[string]string) provider.Object {
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
	if tags[tagSubnet] == "auto" {
		delete(props, "subnet")
	}
	var groups []string
	for _, g := range in.SecurityGroups {
		groups = append(groups, aws.ToString(g.GroupId))
	}
	if len(groups) > 0 {
		props["securityGroups"] = property.List(sortedStrs(groups))
	}
	if id := keyIDs[aws.ToString(in.KeyName)]; id != "" {
		props["sshKeys"] = []any{id}
	}
	outputs := map[string]any{"privateIp": aws.ToString(in.PrivateIpAddress), "publicIp": aws.ToString(in.PublicIpAddress)}
	return provider.NewObject(aws.ToString(in.InstanceId), tags[tagNameAWS], property.SetTags(props, tags, systemTag), outputs)
}

func (k vmKind) object(ctx context.Context, in ec2api.Instance) (provider.Object, error) {
	var names []string
	if n := aws.ToString(in.KeyName); n != "" {
		names = append(names, n)
	}
	ids, err := k.p.keyIDs(ctx, names)
	if err != nil {
		return provider.Object{}, err
	}
	return vmObject(in, ids), nil
}

func (k vmKind) Lookup(ctx context.Context, name string) (provider.Object, error) {
	in, err := k.describe(ctx, plain, ec2api.DescribeInstancesInput{
		Filters: append(byName(name), filter("instance-state-name", liveStates...)),
	}, name)
	if err != nil {
		return provider.Object{}, err
	}
	return k.object(ctx, in)
}

func (k vmKind) Read(ctx context.Context, id string) (provider.Object, error) {
	return k.readAs(ctx, plain, id)
}

func (k vmKind) readAs(ctx context.Context, m mode, id string) (provider.Object, error) {
	in, err := k.describe(ctx, m, ec2api.DescribeInstancesInput{InstanceIds: []string{id}}, id)
	if err != nil {
		return provider.Object{}, err
	}
	return k.object(ctx, in)
}

// wait polls until the instance is in state want ("terminated" also
// accepts the instance being gone). An instance that terminates while
// Kyku waits for it to run or stop fails the wait at once, with EC2's
// reason (a launch that failed, a limit, a volume that could not attach).
func (k vmKind) wait(ctx context.Context, id string, want ec2api.InstanceStateName) error {
	return k.p.poll(ctx, "instance "+id+" "+string(want), func(ctx context.Context) (bool, error) {
		ins, err := k.p.instances(ctx, settling, ec2api.DescribeInstancesInput{InstanceIds: []string{id}})
		if err != nil {
			return false, err
		}
		if len(ins) == 0 || ins[0].State == nil {
			return want == ec2api.InstanceStateNameTerminated, nil
		}
		in := ins[0]
		state := in.State.Name
		if want != ec2api.InstanceStateNameTerminated &&
			(state == ec2api.InstanceStateNameTerminated || state == ec2api.InstanceStateNameShuttingDown) {
			reason := "no reason given"
			if in.StateReason != nil {
				reason = aws.ToString(in.StateReason.Code) + ": " + aws.ToString(in.StateReason.Message)
			}
			return false, fmt.Errorf("instance %s is %s instead of %s: %s", id, state, want, reason)
		}
		return state == want, nil
	})
}

// subnetFor picks the Vm's subnet: its subnet property, else the first
// public Kyku subnet of its network (by ID, every page read).
func (k vmKind) subnetFor(ctx context.Context, r provider.Resource) (string, error) {
	if s := property.String(r.Properties, "subnet"); s != "" {
		return s, nil
	}
	vpc := property.String(r.Properties, "network")
	if vpc == "" {
		//lint:ignore ST1005 Vm is the resource type as the configuration spells it
		return "", fmt.Errorf("Vm %q needs a subnet or a network on aws", r.Name)
	}
	ss, err := k.p.subnets(ctx, settling, ec2api.DescribeSubnetsInput{Filters: []ec2api.Filter{
		filter("vpc-id", vpc), filter("tag:"+tagManaged, "true"), filter("map-public-ip-on-launch", "true"),
	}})
	if err != nil {
		return "", err
	}
	if len(ss) == 0 {
		return "", fmt.Errorf("network %s has no public subnet for Vm %q", vpc, r.Name)
	}
	ids := make([]string, 0, len(ss))
	for _, s := range ss {
		ids = append(ids, aws.ToString(s.SubnetId))
	}
	sort.Strings(ids)
	return ids[0], nil
}

// vmTags are Kyku's own tags of an instance: the size and image as
// written, and whether Kyku picked its subnet.
func vmTags(r provider.Resource, size, image string) map[string]string {
	t := map[string]string{tagSize: size, tagImage: image}
	if property.String(r.Properties, "subnet") == "" {
		t[tagSubnet] = "auto"
	}
	return t
}

func (k vmKind) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	if err := required(r, "image"); err != nil {
		return provider.Object{}, err
	}
	existing, err := k.describe(ctx, plain, ec2api.DescribeInstancesInput{
		Filters: append(byName(r.CloudName), filter("instance-state-name", liveStates...)),
	}, r.CloudName)
	if err == nil {
		if err := k.ensureRunning(ctx, existing); err != nil {
			return provider.Object{}, err
		}
		return k.readAs(ctx, settling, aws.ToString(existing.InstanceId))
	}
	if !provider.IsNotFound(err) {
		return provider.Object{}, err
	}
	size := property.StringOr(r.Properties, "size", "small")
	typ, err := instanceType(size)
	if err != nil {
		return provider.Object{}, err
	}
	image := property.String(r.Properties, "image")
	ami, err := k.p.resolveImage(ctx, image)
	if err != nil {
		return provider.Object{}, err
	}
	subnet, err := k.subnetFor(ctx, r)
	if err != nil {
		return provider.Object{}, err
	}
	// One client token for every resend of this request: EC2 answers a
	// resend that had landed with the instance it already started.
	in := &ec2api.RunInstancesInput{
		ImageId: aws.String(ami), InstanceType: ec2api.InstanceType(typ), MinCount: aws.Int32(1), MaxCount: aws.Int32(1),
		SubnetId: aws.String(subnet), SecurityGroupIds: property.Strings(r.Properties, "securityGroups"),
		ClientToken:       aws.String("kyku-" + rand.Text()),
		TagSpecifications: tagSpec(ec2api.ResourceTypeInstance, wantTags(r, vmTags(r, size, image))),
	}
	if ud := property.String(r.Properties, "userData"); ud != "" {
		in.UserData = aws.String(base64(ud))
	}
	if keys := property.Strings(r.Properties, "sshKeys"); len(keys) > 1 {
		return provider.Object{}, fmt.Errorf("an EC2 instance takes one key pair, got %d sshKeys", len(keys))
	} else if len(keys) == 1 {
		kp, err := keyKind(k).describe(ctx, settling, &ec2api.DescribeKeyPairsInput{KeyPairIds: keys}, keys[0])
		if err != nil {
			return provider.Object{}, err
		}
		in.KeyName = kp.KeyName
	}
	var out *ec2api.RunInstancesOutput
	err = k.p.call(ctx, "run instance", settling, func(ctx context.Context) (err error) {
		out, err = k.p.ec2.RunInstances(ctx, in)
		return err
	})
	if err != nil {
		return provider.Object{}, err
	}
	id := aws.ToString(out.Instances[0].InstanceId)
	if err := k.wait(ctx, id, ec2api.InstanceStateNameRunning); err != nil {
		return provider.Object{}, err
	}
	return k.readAs(ctx, settling, id)
}

func (k vmKind) Update(ctx context.Context, id string, r provider.Resource, cur provider.Object) (provider.Object, error) {
	for _, name := range []string{"subnet", "network", "sshKeys"} {
		if want, ok := r.Properties[name]; ok && !value.Equal(want, cur.Properties[name]) {
			return provider.Object{}, fmt.Errorf("property %s of an EC2 instance cannot change in place", name)
		}
	}
	p := k.p
	in, err := k.describe(ctx, plain, ec2api.DescribeInstancesInput{InstanceIds: []string{id}}, id)
	if err != nil {
		return provider.Object{}, err
	}
	size := property.StringOr(r.Properties, "size", "small")
	typ, err := instanceType(size)
	if err != nil {
		return provider.Object{}, err
	}
	if fromEC2Tags(in.Tags)[tagResizing] != "" {
		// A resize was interrupted with the instance stopped: finish it.
		if err := k.ensureRunning(ctx, in); err != nil {
			return provider.Object{}, err
		}
	}
	if typ != string(in.InstanceType) {
		if err := k.resize(ctx, in, typ); err != nil {
			return provider.Object{}, err
		}
	}
	if in, err = k.describe(ctx, plain, ec2api.DescribeInstancesInput{InstanceIds: []string{id}}, id); err != nil {
		return provider.Object{}, err
	}
	have := fromEC2Tags(in.Tags)
	want := wantTags(r, vmTags(r, size, have[tagImage]))
	want[tagNameAWS] = have[tagNameAWS]
	if err := p.syncEC2Tags(ctx, id, have, want); err != nil {
		return provider.Object{}, err
	}
	groups := property.Strings(r.Properties, "securityGroups")
	if sg, ok := cur.Properties["securityGroups"]; len(groups) > 0 && !(ok && value.Equal(property.List(sortedStrs(groups)), sg)) {
		err := p.call(ctx, "set instance security groups", settling, func(ctx context.Context) error {
			_, err := p.ec2.ModifyInstanceAttribute(ctx, &ec2api.ModifyInstanceAttributeInput{InstanceId: aws.String(id), Groups: groups})
			return err
		})
		if err != nil {
			return provider.Object{}, err
		}
	}
	return k.Read(ctx, id)
}

func (k vmKind) Delete(ctx context.Context, id string) error {
	if _, err := k.describe(ctx, plain, ec2api.DescribeInstancesInput{InstanceIds: []string{id}}, id); err != nil {
		return err
	}
	err := k.p.call(ctx, "terminate instance", plain, func(ctx context.Context) error {
		_, err := k.p.ec2.TerminateInstances(ctx, &ec2api.TerminateInstancesInput{InstanceIds: []string{id}})
		return err
	})
	if err != nil {
		return err
	}
	return k.wait(ctx, id, ec2api.InstanceStateNameTerminated)
}
