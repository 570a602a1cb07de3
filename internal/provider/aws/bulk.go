package aws

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/kyku/action/internal/provider"
	elb "github.com/kyku/action/internal/provider/aws/elbapi"
	rds "github.com/kyku/action/internal/provider/aws/rdsapi"

	"github.com/kyku/action/internal/provider/aws/ec2api"
)

// Largest number of values AWS takes in one request.
const (
	ec2FilterValues = 200 // values of one EC2 filter
	rdsFilterValues = 100 // values of the db-instance-id filter
	elbTagARNs      = 20  // resources of one ELBv2 DescribeTags
)

// ReadMany reads refs in a few list calls per type instead of one Read
// each, every page read to the end, the types concurrently. EC2 types
// (Vpc, Subnet, SecurityGroup, SshKey, Vm) are listed by the kyku:prefix
// tag, then whatever that missed (an object whose tags were changed) by
// its ID, up to 200 per call. Databases are listed by ID, 100 per call
// (RDS has no tag filter). Target groups and load balancers are listed
// whole (ELBv2 fails a Describe naming a missing ARN), their tags 20 per
// call; their targets and listeners still cost one call each, which the
// API offers no other way to read. An object not returned — gone,
// terminated, or missed — is left to the engine's Read. The objects are
// exactly what Read returns.
func (p *Provider) ReadMany(ctx context.Context, prefix string, refs []provider.Ref) (map[provider.Ref]provider.Object, error) {
	ids := map[string][]string{}
	for _, r := range refs {
		if _, err := p.kinds.Kind(r.Type); err != nil {
			return nil, err
		}
		ids[r.Type] = append(ids[r.Type], r.ID)
	}
	types := make([]string, 0, len(ids))
	for t := range ids {
		types = append(types, t)
	}
	sort.Strings(types)
	out := make(map[provider.Ref]provider.Object, len(refs))
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, len(types))
	for i, typ := range types {
		wg.Add(1)
		go func() {
			defer wg.Done()
			objs, err := p.readType(ctx, typ, prefix, ids[typ])
			if err != nil {
				errs[i] = fmt.Errorf("list %s: %w", typ, err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, o := range objs {
				out[provider.Ref{Type: typ, ID: o.ID}] = o
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func (p *Provider) readType(ctx context.Context, typ, prefix string, ids []string) ([]provider.Object, error) {
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	switch typ {
	case "Vpc":
		vs, err := ec2Bulk(ctx, prefix, want, "vpc-id", func(ctx context.Context, f []ec2api.Filter) ([]ec2api.Vpc, error) {
			return p.vpcs(ctx, plain, ec2api.DescribeVpcsInput{Filters: f})
		}, func(v ec2api.Vpc) string { return aws.ToString(v.VpcId) })
		return mapObjects(vs, vpcObject), err
	case "Subnet":
		ss, err := ec2Bulk(ctx, prefix, want, "subnet-id", func(ctx context.Context, f []ec2api.Filter) ([]ec2api.Subnet, error) {
			return p.subnets(ctx, plain, ec2api.DescribeSubnetsInput{Filters: f})
		}, func(s ec2api.Subnet) string { return aws.ToString(s.SubnetId) })
		return mapObjects(ss, subnetObject), err
	case "SecurityGroup":
		gs, err := ec2Bulk(ctx, prefix, want, "group-id", func(ctx context.Context, f []ec2api.Filter) ([]ec2api.SecurityGroup, error) {
			return p.securityGroups(ctx, plain, ec2api.DescribeSecurityGroupsInput{Filters: f})
		}, func(g ec2api.SecurityGroup) string { return aws.ToString(g.GroupId) })
		return mapObjects(gs, sgObject), err
	case "SshKey":
		ks, err := ec2Bulk(ctx, prefix, want, "key-pair-id", func(ctx context.Context, f []ec2api.Filter) ([]ec2api.KeyPairInfo, error) {
			var out *ec2api.DescribeKeyPairsOutput
			err := p.call(ctx, "describe key pairs", plain, func(ctx context.Context) (err error) {
				out, err = p.ec2.DescribeKeyPairs(ctx, &ec2api.DescribeKeyPairsInput{Filters: f, IncludePublicKey: aws.Bool(true)})
				return err
			})
			if err != nil {
				return nil, err
			}
			return out.KeyPairs, nil
		}, func(k ec2api.KeyPairInfo) string { return aws.ToString(k.KeyPairId) })
		return mapObjects(ks, keyObject), err
	case "Vm":
		return p.readVms(ctx, prefix, want)
	case "Database":
		return p.readDatabases(ctx, ids)
	case "TargetGroup":
		return p.readTargetGroups(ctx, want)
	case "LoadBalancer":
		return p.readLoadBalancers(ctx, want)
	}
	return nil, fmt.Errorf("aws provider has no resource type %q", typ)
}

func mapObjects[T any](items []T, f func(T) provider.Object) []provider.Object {
	out := make([]provider.Object, 0, len(items))
	for _, it := range items {
		out = append(out, f(it))
	}
	return out
}

// ec2Bulk lists the objects of want: by the deploy prefix's tag (a
// filter, every page), then those it missed by ID (idFilter, 200 values a
// call), keeping only what was asked for.
func ec2Bulk[T any](ctx context.Context, prefix string, want map[string]bool, idFilter string,
	list func(context.Context, []ec2api.Filter) ([]T, error), idOf func(T) string) ([]T, error) {
	var out []T
	found := map[string]bool{}
	keep := func(items []T) {
		for _, it := range items {
			if id := idOf(it); want[id] && !found[id] {
				found[id] = true
				out = append(out, it)
			}
		}
	}
	if prefix != "" {
		items, err := list(ctx, []ec2api.Filter{filter("tag:"+tagPrefix, prefix)})
		if err != nil {
			return nil, err
		}
		keep(items)
	}
	var missed []string
	for id := range want {
		if !found[id] {
			missed = append(missed, id)
		}
	}
	sort.Strings(missed)
	for len(missed) > 0 {
		n := min(len(missed), ec2FilterValues)
		items, err := list(ctx, []ec2api.Filter{filter(idFilter, missed[:n]...)})
		if err != nil {
			return nil, err
		}
		keep(items)
		missed = missed[n:]
	}
	return out, nil
}

func (p *Provider) readVms(ctx context.Context, prefix string, want map[string]bool) ([]provider.Object, error) {
	ins, err := ec2Bulk(ctx, prefix, want, "instance-id", func(ctx context.Context, f []ec2api.Filter) ([]ec2api.Instance, error) {
		return p.instances(ctx, plain, ec2api.DescribeInstancesInput{Filters: append(f, filter("instance-state-name", liveStates...))})
	}, func(in ec2api.Instance) string { return aws.ToString(in.InstanceId) })
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, in := range ins {
		if n := aws.ToString(in.KeyName); n != "" {
			names[n] = true
		}
	}
	var keyNames []string
	for n := range names {
		keyNames = append(keyNames, n)
	}
	sort.Strings(keyNames)
	keyIDs := map[string]string{}
	for len(keyNames) > 0 {
		n := min(len(keyNames), ec2FilterValues)
		ids, err := p.keyIDs(ctx, keyNames[:n])
		if err != nil {
			return nil, err
		}
		for k, v := range ids {
			keyIDs[k] = v
		}
		keyNames = keyNames[n:]
	}
	out := make([]provider.Object, 0, len(ins))
	for _, in := range ins {
		out = append(out, vmObject(in, keyIDs))
	}
	return out, nil
}

func (p *Provider) readDatabases(ctx context.Context, ids []string) ([]provider.Object, error) {
	ids = sortedStrs(ids)
	var out []provider.Object
	for len(ids) > 0 {
		n := min(len(ids), rdsFilterValues)
		dbs, err := p.dbInstances(ctx, plain, rds.DescribeDBInstancesInput{
			Filters: []rds.Filter{{Name: aws.String("db-instance-id"), Values: ids[:n]}},
		})
		if err != nil {
			return nil, err
		}
		out = append(out, mapObjects(dbs, dbObject)...)
		ids = ids[n:]
	}
	return out, nil
}

// elbTagsMany reads the tags of arns, 20 per call.
func (p *Provider) elbTagsMany(ctx context.Context, arns []string) (map[string]map[string]string, error) {
	out := make(map[string]map[string]string, len(arns))
	for len(arns) > 0 {
		n := min(len(arns), elbTagARNs)
		var resp *elb.DescribeTagsOutput
		err := p.call(ctx, "describe tags", plain, func(ctx context.Context) (err error) {
			resp, err = p.elb.DescribeTags(ctx, &elb.DescribeTagsInput{ResourceArns: arns[:n]})
			return err
		})
		if provider.IsNotFound(err) && n > 1 {
			// One of them went since it was listed: read them one by one,
			// leaving out the gone one (the engine's Read then says so).
			for _, arn := range arns[:n] {
				tags, err := p.elbTagsOf(ctx, plain, arn)
				if provider.IsNotFound(err) {
					continue
				}
				if err != nil {
					return nil, err
				}
				out[arn] = tags
			}
			arns = arns[n:]
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, d := range resp.TagDescriptions {
			tags := map[string]string{}
			for _, t := range d.Tags {
				tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
			}
			out[aws.ToString(d.ResourceArn)] = tags
		}
		arns = arns[n:]
	}
	return out, nil
}

func (p *Provider) readTargetGroups(ctx context.Context, want map[string]bool) ([]provider.Object, error) {
	all, err := p.targetGroups(ctx, plain, elb.DescribeTargetGroupsInput{PageSize: aws.Int32(400)})
	if err != nil {
		return nil, err
	}
	var arns []string
	for _, tg := range all {
		if want[aws.ToString(tg.TargetGroupArn)] {
			arns = append(arns, aws.ToString(tg.TargetGroupArn))
		}
	}
	tags, err := p.elbTagsMany(ctx, arns)
	if err != nil {
		return nil, err
	}
	var out []provider.Object
	for _, tg := range all {
		arn := aws.ToString(tg.TargetGroupArn)
		if !want[arn] {
			continue
		}
		targets, err := tgKind{p}.targets(ctx, plain, arn)
		if provider.IsNotFound(err) {
			continue // deleted meanwhile: the engine's Read says so
		}
		if err != nil {
			return nil, err
		}
		out = append(out, tgObject(tg, targets, tags[arn]))
	}
	return out, nil
}

func (p *Provider) readLoadBalancers(ctx context.Context, want map[string]bool) ([]provider.Object, error) {
	all, err := p.loadBalancers(ctx, plain, elb.DescribeLoadBalancersInput{PageSize: aws.Int32(400)})
	if err != nil {
		return nil, err
	}
	var arns []string
	for _, lb := range all {
		if want[aws.ToString(lb.LoadBalancerArn)] {
			arns = append(arns, aws.ToString(lb.LoadBalancerArn))
		}
	}
	tags, err := p.elbTagsMany(ctx, arns)
	if err != nil {
		return nil, err
	}
	var out []provider.Object
	for _, lb := range all {
		arn := aws.ToString(lb.LoadBalancerArn)
		if !want[arn] {
			continue
		}
		l, err := lbKind{p}.listener(ctx, plain, arn)
		if provider.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, lbObject(lb, tags[arn], l))
	}
	return out, nil
}
