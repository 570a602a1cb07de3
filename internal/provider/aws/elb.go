package aws

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/kyku/action/internal/provider"
	elb "github.com/kyku/action/internal/provider/aws/elbapi"

	"github.com/kyku/action/internal/provider/aws/ec2api"
	"github.com/kyku/action/internal/provider/property"
)

// elbName fits a cloud name into ELBv2's 32 characters, deterministically
// (a hash suffix) so idempotent lookup by name still works.
func elbName(name string) string {
	if len(name) <= 32 {
		return name
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	return fmt.Sprintf("%s-%08x", strings.TrimRight(name[:23], "-"), h.Sum32())
}

// elbTags is t as ELBv2 tags, sorted by key.
func elbTags(t map[string]string) []elb.Tag {
	var out []elb.Tag
	for _, k := range slices.Sorted(maps.Keys(t)) {
		out = append(out, elb.Tag{Key: aws.String(k), Value: aws.String(t[k])})
	}
	return out
}

func (p *Provider) elbTagsOf(ctx context.Context, m mode, arn string) (map[string]string, error) {
	var out *elb.DescribeTagsOutput
	err := p.call(ctx, "describe tags", m, func(ctx context.Context) (err error) {
		out, err = p.elb.DescribeTags(ctx, &elb.DescribeTagsInput{ResourceArns: []string{arn}})
		return err
	})
	if err != nil {
		return nil, err
	}
	tags := map[string]string{}
	for _, d := range out.TagDescriptions {
		for _, t := range d.Tags {
			tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
		}
	}
	return tags, nil
}

func (p *Provider) syncELBTags(ctx context.Context, arn string, want map[string]string) error {
	have, err := p.elbTagsOf(ctx, plain, arn)
	if err != nil {
		return err
	}
	want[tagNameAWS] = have[tagNameAWS]
	set, remove := tagDiff(have, want)
	if len(set) > 0 {
		err := p.call(ctx, "tag "+arn, plain, func(ctx context.Context) error {
			err := p.elb.AddTags(ctx, &elb.AddTagsInput{ResourceArns: []string{arn}, Tags: elbTags(set)})
			return err
		})
		if err != nil {
			return err
		}
	}
	if len(remove) > 0 {
		return p.call(ctx, "untag "+arn, plain, func(ctx context.Context) error {
			err := p.elb.RemoveTags(ctx, &elb.RemoveTagsInput{ResourceArns: []string{arn}, TagKeys: remove})
			return err
		})
	}
	return nil
}

// tgKind maps TargetGroup to an ELBv2 instance target group. Its VPC is
// the VPC of its first target (TargetGroup has no network property), so on
// aws a TargetGroup needs at least one target. Port and protocol cannot
// change in place on AWS.
type tgKind struct{ p *Provider }

var tgProtocols = sync.OnceValue(func() map[string]elb.ProtocolEnum {
	return map[string]elb.ProtocolEnum{"http": elb.ProtocolEnumHttp, "https": elb.ProtocolEnumHttps, "tcp": elb.ProtocolEnumTcp}
})

// describe reads one target group; with m settling a not-found answer
// is a group made a moment ago, not visible yet, and retried.
func (k tgKind) describe(ctx context.Context, m mode, in elb.DescribeTargetGroupsInput, what string) (elb.TargetGroup, error) {
	tgs, err := k.p.targetGroups(ctx, m, in)
	if err != nil {
		return elb.TargetGroup{}, err
	}
	if len(tgs) == 0 {
		return elb.TargetGroup{}, provider.NotFound("target group " + what)
	}
	return tgs[0], nil
}

func (k tgKind) targets(ctx context.Context, m mode, arn string) ([]string, error) {
	var out *elb.DescribeTargetHealthOutput
	err := k.p.call(ctx, "describe target health", m, func(ctx context.Context) (err error) {
		out, err = k.p.elb.DescribeTargetHealth(ctx, &elb.DescribeTargetHealthInput{TargetGroupArn: aws.String(arn)})
		return err
	})
	if err != nil {
		return nil, err
	}
	// A deregistered target drains for minutes (the deregistration delay)
	// and is listed meanwhile: it is no longer a member.
	var ids []string
	for _, d := range out.TargetHealthDescriptions {
		if d.TargetHealth != nil && d.TargetHealth.State == elb.TargetHealthStateEnumDraining {
			continue
		}
		ids = append(ids, aws.ToString(d.Target.Id))
	}
	return sortedStrs(ids), nil
}

func (k tgKind) object(ctx context.Context, m mode, tg elb.TargetGroup) (provider.Object, error) {
	arn := aws.ToString(tg.TargetGroupArn)
	targets, err := k.targets(ctx, m, arn)
	if err != nil {
		return provider.Object{}, err
	}
	tags, err := k.p.elbTagsOf(ctx, m, arn)
	if err != nil {
		return provider.Object{}, err
	}
	return tgObject(tg, targets, tags), nil
}

// tgObject is a target group in Kyku's vocabulary.
func tgObject(tg elb.TargetGroup, targets []string, tags map[string]string) provider.Object {
	props := map[string]any{
		"port": float64(aws.ToInt32(tg.Port)), "protocol": strings.ToLower(string(tg.Protocol)), "targets": property.List(targets),
	}
	return provider.NewObject(aws.ToString(tg.TargetGroupArn), tags[tagNameAWS], property.SetTags(props, tags, systemTag), nil)
}

func (k tgKind) Lookup(ctx context.Context, name string) (provider.Object, error) {
	tg, err := k.describe(ctx, plain, elb.DescribeTargetGroupsInput{Names: []string{elbName(name)}}, name)
	if err != nil {
		return provider.Object{}, err
	}
	return k.object(ctx, plain, tg)
}

func (k tgKind) Read(ctx context.Context, id string) (provider.Object, error) {
	return k.readAs(ctx, plain, id)
}

// readAs reads with mode m: settling right after a create.
func (k tgKind) readAs(ctx context.Context, m mode, id string) (provider.Object, error) {
	tg, err := k.describe(ctx, m, elb.DescribeTargetGroupsInput{TargetGroupArns: []string{id}}, id)
	if err != nil {
		return provider.Object{}, err
	}
	return k.object(ctx, m, tg)
}

func (k tgKind) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	p := k.p
	tg, err := k.describe(ctx, plain, elb.DescribeTargetGroupsInput{Names: []string{elbName(r.CloudName)}}, r.CloudName)
	if err != nil && !provider.IsNotFound(err) {
		return provider.Object{}, err
	}
	if err != nil {
		targets := property.Strings(r.Properties, "targets")
		if len(targets) == 0 {
			return provider.Object{}, fmt.Errorf("a TargetGroup on aws needs at least one target (its VPC is the first target's)")
		}
		first, err := vmKind(k).describe(ctx, settling, ec2api.DescribeInstancesInput{InstanceIds: targets[:1]}, targets[0])
		if err != nil {
			return provider.Object{}, err
		}
		proto, ok := tgProtocols()[property.String(r.Properties, "protocol")]
		if !ok {
			proto = elb.ProtocolEnumHttp
		}
		var out *elb.CreateTargetGroupOutput
		err = p.call(ctx, "create target group", plain, func(ctx context.Context) (err error) {
			out, err = p.elb.CreateTargetGroup(ctx, &elb.CreateTargetGroupInput{
				Name: aws.String(elbName(r.CloudName)), Port: aws.Int32(int32(property.Int(r.Properties, "port", 80))),
				Protocol: proto, VpcId: first.VpcId, TargetType: elb.TargetTypeEnumInstance,
				Tags: elbTags(wantTags(r, nil)),
			})
			return err
		})
		if err != nil {
			return provider.Object{}, err
		}
		tg = out.TargetGroups[0]
	}
	arn := aws.ToString(tg.TargetGroupArn)
	if err := k.setTargets(ctx, settling, arn, property.Strings(r.Properties, "targets")); err != nil {
		return provider.Object{}, err
	}
	return k.readAs(ctx, settling, arn)
}

// setTargets registers want and deregisters the rest; m is settling
// right after the group was made.
func (k tgKind) setTargets(ctx context.Context, m mode, arn string, want []string) error {
	p := k.p
	have, err := k.targets(ctx, m, arn)
	if err != nil {
		return err
	}
	add, remove := property.Diff(have, want)
	descs := func(ids []string) []elb.TargetDescription {
		var out []elb.TargetDescription
		for _, id := range ids {
			out = append(out, elb.TargetDescription{Id: aws.String(id)})
		}
		return out
	}
	if len(remove) > 0 {
		err := p.call(ctx, "deregister targets", m, func(ctx context.Context) error {
			err := p.elb.DeregisterTargets(ctx, &elb.DeregisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: descs(remove)})
			return err
		})
		if err != nil {
			return err
		}
	}
	if len(add) == 0 {
		return nil
	}
	return p.call(ctx, "register targets", settling, func(ctx context.Context) error {
		err := p.elb.RegisterTargets(ctx, &elb.RegisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: descs(add)})
		return err
	})
}

func (k tgKind) Update(ctx context.Context, id string, r provider.Resource, cur provider.Object) (provider.Object, error) {
	for _, name := range []string{"port", "protocol"} {
		if want, ok := r.Properties[name]; ok && want != cur.Properties[name] {
			return provider.Object{}, fmt.Errorf("property %s of an ELBv2 target group cannot change in place", name)
		}
	}
	if err := k.p.syncELBTags(ctx, id, wantTags(r, nil)); err != nil {
		return provider.Object{}, err
	}
	if err := k.setTargets(ctx, plain, id, property.Strings(r.Properties, "targets")); err != nil {
		return provider.Object{}, err
	}
	return k.Read(ctx, id)
}

func (k tgKind) Delete(ctx context.Context, id string) error {
	if _, err := k.describe(ctx, plain, elb.DescribeTargetGroupsInput{TargetGroupArns: []string{id}}, id); err != nil {
		return err
	}
	// Right after its load balancer went, the target group may still be
	// in use by the listener being removed (ResourceInUse).
	return k.p.whileInUse(ctx, "delete target group", func(ctx context.Context) error {
		err := k.p.elb.DeleteTargetGroup(ctx, &elb.DeleteTargetGroupInput{TargetGroupArn: aws.String(id)})
		return err
	})
}
