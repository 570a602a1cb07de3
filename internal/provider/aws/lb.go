package aws

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/kyku/action/internal/provider"
)

// lbKind maps LoadBalancer to an internet-facing ELBv2 load balancer in
// the network's public Kyku subnets (an application LB, or a network LB
// when the target group speaks TCP) with one listener on port forwarding
// to the target group. Deleting the LB deletes its listeners.
type lbKind struct{ p *Provider }

func (k lbKind) describe(ctx context.Context, in *elb.DescribeLoadBalancersInput, what string) (elbtypes.LoadBalancer, error) {
	var out *elb.DescribeLoadBalancersOutput
	err := k.p.call(ctx, "describe load balancers", plain, func(ctx context.Context) (err error) {
		out, err = k.p.elb.DescribeLoadBalancers(ctx, in)
		return err
	})
	if err != nil {
		return elbtypes.LoadBalancer{}, err
	}
	if len(out.LoadBalancers) == 0 {
		return elbtypes.LoadBalancer{}, gone("load balancer " + what)
	}
	return out.LoadBalancers[0], nil
}

func (k lbKind) listener(ctx context.Context, arn string) (*elbtypes.Listener, error) {
	var out *elb.DescribeListenersOutput
	err := k.p.call(ctx, "describe listeners", plain, func(ctx context.Context) (err error) {
		out, err = k.p.elb.DescribeListeners(ctx, &elb.DescribeListenersInput{LoadBalancerArn: aws.String(arn)})
		return err
	})
	if err != nil || len(out.Listeners) == 0 {
		return nil, err
	}
	return &out.Listeners[0], nil
}

func (k lbKind) object(ctx context.Context, lb elbtypes.LoadBalancer) (provider.Object, error) {
	arn := aws.ToString(lb.LoadBalancerArn)
	tags, err := k.p.elbTagsOf(ctx, arn)
	if err != nil {
		return provider.Object{}, err
	}
	props := map[string]any{"network": aws.ToString(lb.VpcId)}
	l, err := k.listener(ctx, arn)
	if err != nil {
		return provider.Object{}, err
	}
	if l != nil {
		props["port"] = float64(aws.ToInt32(l.Port))
		for _, a := range l.DefaultActions {
			if a.TargetGroupArn != nil {
				props["targetGroup"] = aws.ToString(a.TargetGroupArn)
			}
		}
	}
	return object(arn, tags[tagNameAWS], setTags(props, tags), map[string]any{"endpoint": aws.ToString(lb.DNSName)}), nil
}

func (k lbKind) lookup(ctx context.Context, name string) (provider.Object, error) {
	lb, err := k.describe(ctx, &elb.DescribeLoadBalancersInput{Names: []string{elbName(name)}}, name)
	if err != nil {
		return provider.Object{}, err
	}
	return k.object(ctx, lb)
}

func (k lbKind) read(ctx context.Context, id string) (provider.Object, error) {
	lb, err := k.describe(ctx, &elb.DescribeLoadBalancersInput{LoadBalancerArns: []string{id}}, id)
	if err != nil {
		return provider.Object{}, err
	}
	return k.object(ctx, lb)
}

func (k lbKind) create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	if err := required(r, "network", "targetGroup"); err != nil {
		return provider.Object{}, err
	}
	p := k.p
	tg, err := tgKind(k).describe(ctx, &elb.DescribeTargetGroupsInput{TargetGroupArns: []string{pstr(r.Properties, "targetGroup")}}, pstr(r.Properties, "targetGroup"))
	if err != nil {
		return provider.Object{}, err
	}
	lb, err := k.describe(ctx, &elb.DescribeLoadBalancersInput{Names: []string{elbName(r.CloudName)}}, r.CloudName)
	if err != nil && !isGone(err) {
		return provider.Object{}, err
	}
	if err != nil {
		ss, err := subnetKind(k).describe(ctx, settling, &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{
			filter("vpc-id", pstr(r.Properties, "network")), filter("tag:"+tagManaged, "true"), filter("map-public-ip-on-launch", "true"),
		}})
		if err != nil {
			return provider.Object{}, err
		}
		var subnets []string
		for _, s := range ss {
			subnets = append(subnets, aws.ToString(s.SubnetId))
		}
		if len(subnets) == 0 {
			return provider.Object{}, fmt.Errorf("network %s has no public subnets for the load balancer", pstr(r.Properties, "network"))
		}
		typ := elbtypes.LoadBalancerTypeEnumApplication
		if tg.Protocol == elbtypes.ProtocolEnumTcp {
			typ = elbtypes.LoadBalancerTypeEnumNetwork
		}
		var out *elb.CreateLoadBalancerOutput
		err = p.call(ctx, "create load balancer", plain, func(ctx context.Context) (err error) {
			out, err = p.elb.CreateLoadBalancer(ctx, &elb.CreateLoadBalancerInput{
				Name: aws.String(elbName(r.CloudName)), Subnets: sortedStrs(subnets), Type: typ,
				Scheme: elbtypes.LoadBalancerSchemeEnumInternetFacing, Tags: elbTags(wantTags(r, nil)),
			})
			return err
		})
		if err != nil {
			return provider.Object{}, err
		}
		lb = out.LoadBalancers[0]
	}
	arn := aws.ToString(lb.LoadBalancerArn)
	if err := k.setListener(ctx, arn, tg, pint(r.Properties, "port", 80)); err != nil {
		return provider.Object{}, err
	}
	return k.read(ctx, arn)
}

// setListener makes the LB's listener forward port to tg.
func (k lbKind) setListener(ctx context.Context, arn string, tg elbtypes.TargetGroup, port int) error {
	p := k.p
	l, err := k.listener(ctx, arn)
	if err != nil {
		return err
	}
	action := []elbtypes.Action{{Type: elbtypes.ActionTypeEnumForward, TargetGroupArn: tg.TargetGroupArn}}
	if l == nil {
		return p.call(ctx, "create listener", plain, func(ctx context.Context) error {
			_, err := p.elb.CreateListener(ctx, &elb.CreateListenerInput{
				LoadBalancerArn: aws.String(arn), Port: aws.Int32(int32(port)), Protocol: tg.Protocol, DefaultActions: action,
			})
			return err
		})
	}
	sameTG := len(l.DefaultActions) == 1 && aws.ToString(l.DefaultActions[0].TargetGroupArn) == aws.ToString(tg.TargetGroupArn)
	if aws.ToInt32(l.Port) == int32(port) && sameTG {
		return nil
	}
	return p.call(ctx, "modify listener", plain, func(ctx context.Context) error {
		_, err := p.elb.ModifyListener(ctx, &elb.ModifyListenerInput{
			ListenerArn: l.ListenerArn, Port: aws.Int32(int32(port)), DefaultActions: action,
		})
		return err
	})
}

func (k lbKind) update(ctx context.Context, id string, r provider.Resource, cur provider.Object) (provider.Object, error) {
	if want, ok := r.Properties["network"]; ok && want != cur.Properties["network"] {
		return provider.Object{}, fmt.Errorf("the network of a load balancer cannot change in place")
	}
	if err := k.p.syncELBTags(ctx, id, wantTags(r, nil)); err != nil {
		return provider.Object{}, err
	}
	tgArn := pstr(r.Properties, "targetGroup")
	tg, err := tgKind(k).describe(ctx, &elb.DescribeTargetGroupsInput{TargetGroupArns: []string{tgArn}}, tgArn)
	if err != nil {
		return provider.Object{}, err
	}
	if err := k.setListener(ctx, id, tg, pint(r.Properties, "port", 80)); err != nil {
		return provider.Object{}, err
	}
	return k.read(ctx, id)
}

func (k lbKind) delete(ctx context.Context, id string) error {
	if _, err := k.describe(ctx, &elb.DescribeLoadBalancersInput{LoadBalancerArns: []string{id}}, id); err != nil {
		return err
	}
	return k.p.call(ctx, "delete load balancer", plain, func(ctx context.Context) error {
		_, err := k.p.elb.DeleteLoadBalancer(ctx, &elb.DeleteLoadBalancerInput{LoadBalancerArn: aws.String(id)})
		return err
	})
}
