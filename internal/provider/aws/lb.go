package aws

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/kyku/action/internal/provider"
	elb "github.com/kyku/action/internal/provider/aws/elbapi"

	"github.com/kyku/action/internal/provider/aws/ec2api"
	"github.com/kyku/action/internal/provider/property"
	"github.com/kyku/action/internal/value"
)

// lbKind maps LoadBalancer to an internet-facing ELBv2 load balancer (an
// application LB, or a network LB when the target group speaks TCP) in one
// public Kyku subnet per zone of the network (an application LB needs two
// zones), in the securityGroups asked for, with one listener on port
// forwarding to the target group: HTTPS (TLS on a network LB) with
// certificateArn, else the target group's protocol. Deleting the LB
// deletes its listeners.
type lbKind struct{ p *Provider }

// describe reads one load balancer; with m settling a not-found answer is
// a load balancer made a moment ago, not visible yet, and retried.
func (k lbKind) describe(ctx context.Context, m mode, in elb.DescribeLoadBalancersInput, what string) (elb.LoadBalancer, error) {
	lbs, err := k.p.loadBalancers(ctx, m, in)
	if err != nil {
		return elb.LoadBalancer{}, err
	}
	if len(lbs) == 0 {
		return elb.LoadBalancer{}, provider.NotFound("load balancer " + what)
	}
	return lbs[0], nil
}

func (k lbKind) listener(ctx context.Context, m mode, arn string) (*elb.Listener, error) {
	ls, err := k.p.listeners(ctx, m, elb.DescribeListenersInput{LoadBalancerArn: aws.String(arn)})
	if err != nil || len(ls) == 0 {
		return nil, err
	}
	return &ls[0], nil
}

func lbTags(r provider.Resource) map[string]string {
	if _, ok := r.Properties["securityGroups"]; ok {
		return wantTags(r, map[string]string{tagGroups: "managed"})
	}
	return wantTags(r, nil)
}

// lbObject is a load balancer in Kyku's vocabulary, from its description,
// tags and listener (nil when it has none).
func lbObject(lb elb.LoadBalancer, tags map[string]string, l *elb.Listener) provider.Object {
	props := map[string]any{"network": aws.ToString(lb.VpcId)}
	if tags[tagGroups] == "managed" {
		props["securityGroups"] = property.List(sortedStrs(lb.SecurityGroups))
	}
	if l != nil {
		props["port"] = float64(aws.ToInt32(l.Port))
		for _, a := range l.DefaultActions {
			if a.TargetGroupArn != nil {
				props["targetGroup"] = aws.ToString(a.TargetGroupArn)
			}
		}
		for _, c := range l.Certificates {
			props["certificateArn"] = aws.ToString(c.CertificateArn)
		}
	}
	return provider.NewObject(aws.ToString(lb.LoadBalancerArn), tags[tagNameAWS], property.SetTags(props, tags, systemTag), map[string]any{"endpoint": aws.ToString(lb.DNSName)})
}

func (k lbKind) object(ctx context.Context, m mode, lb elb.LoadBalancer) (provider.Object, error) {
	arn := aws.ToString(lb.LoadBalancerArn)
	tags, err := k.p.elbTagsOf(ctx, m, arn)
	if err != nil {
		return provider.Object{}, err
	}
	l, err := k.listener(ctx, m, arn)
	if err != nil {
		return provider.Object{}, err
	}
	return lbObject(lb, tags, l), nil
}

func (k lbKind) Lookup(ctx context.Context, name string) (provider.Object, error) {
	lb, err := k.describe(ctx, plain, elb.DescribeLoadBalancersInput{Names: []string{elbName(name)}}, name)
	if err != nil {
		return provider.Object{}, err
	}
	return k.object(ctx, plain, lb)
}

func (k lbKind) Read(ctx context.Context, id string) (provider.Object, error) {
	return k.readAs(ctx, plain, id)
}

// readAs reads with mode m: settling right after a create.
func (k lbKind) readAs(ctx context.Context, m mode, id string) (provider.Object, error) {
	lb, err := k.describe(ctx, m, elb.DescribeLoadBalancersInput{LoadBalancerArns: []string{id}}, id)
	if err != nil {
		return provider.Object{}, err
	}
	return k.object(ctx, m, lb)
}

// listenerProtocol decides the listener's protocol from the target
// group's and the certificate: with a certificate HTTPS (TLS for a TCP
// target group), else the target group's own; an HTTPS target group
// without a certificate is refused, as ELBv2 would refuse the listener.
func listenerProtocol(tg elb.ProtocolEnum, cert string) (elb.ProtocolEnum, error) {
	switch {
	case tg == elb.ProtocolEnumTcp && cert != "":
		return elb.ProtocolEnumTls, nil
	case tg == elb.ProtocolEnumTcp:
		return elb.ProtocolEnumTcp, nil
	case cert != "":
		return elb.ProtocolEnumHttps, nil
	case tg == elb.ProtocolEnumHttps:
		return "", fmt.Errorf("an https listener needs a certificate: set certificateArn (an ACM certificate ARN), or use an http target group")
	}
	return elb.ProtocolEnumHttp, nil
}

// publicSubnets picks one public Kyku subnet per zone of the network (the
// lowest ID in each), zones sorted; an application load balancer needs
// two zones, a network one one.
func (k lbKind) publicSubnets(ctx context.Context, r provider.Resource, typ elb.LoadBalancerTypeEnum) ([]string, error) {
	vpc := property.String(r.Properties, "network")
	ss, err := k.p.subnets(ctx, settling, ec2api.DescribeSubnetsInput{Filters: []ec2api.Filter{
		filter("vpc-id", vpc), filter("tag:"+tagManaged, "true"), filter("map-public-ip-on-launch", "true"),
	}})
	if err != nil {
		return nil, err
	}
	byZone := map[string]string{}
	for _, s := range ss {
		z, id := aws.ToString(s.AvailabilityZone), aws.ToString(s.SubnetId)
		if have, ok := byZone[z]; !ok || id < have {
			byZone[z] = id
		}
	}
	zones := make([]string, 0, len(byZone))
	for z := range byZone {
		zones = append(zones, z)
	}
	sort.Strings(zones)
	need := 2
	if typ == elb.LoadBalancerTypeEnumNetwork {
		need = 1
	}
	if len(zones) < need {
		where := "none"
		if len(zones) > 0 {
			where = "only " + strings.Join(zones, ", ")
		}
		return nil, fmt.Errorf("an application load balancer needs public subnets in two zones at least; network %s has them in %s (give the Vpc distributeAcrossAzs: 2, or add a public Subnet in another zone)", vpc, where)
	}
	subnets := make([]string, 0, len(zones))
	for _, z := range zones {
		subnets = append(subnets, byZone[z])
	}
	return subnets, nil
}

func (k lbKind) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	if err := required(r, "network", "targetGroup"); err != nil {
		return provider.Object{}, err
	}
	p := k.p
	tgArn := property.String(r.Properties, "targetGroup")
	// The target group may have been made a moment ago (this apply).
	tg, err := tgKind(k).describe(ctx, settling, elb.DescribeTargetGroupsInput{TargetGroupArns: []string{tgArn}}, tgArn)
	if err != nil {
		return provider.Object{}, err
	}
	if _, err := listenerProtocol(tg.Protocol, property.String(r.Properties, "certificateArn")); err != nil {
		return provider.Object{}, err
	}
	lb, err := k.describe(ctx, plain, elb.DescribeLoadBalancersInput{Names: []string{elbName(r.CloudName)}}, r.CloudName)
	if err != nil && !provider.IsNotFound(err) {
		return provider.Object{}, err
	}
	if err != nil {
		typ := elb.LoadBalancerTypeEnumApplication
		if tg.Protocol == elb.ProtocolEnumTcp {
			typ = elb.LoadBalancerTypeEnumNetwork
		}
		subnets, err := k.publicSubnets(ctx, r, typ)
		if err != nil {
			return provider.Object{}, err
		}
		var out *elb.CreateLoadBalancerOutput
		err = p.call(ctx, "create load balancer", plain, func(ctx context.Context) (err error) {
			out, err = p.elb.CreateLoadBalancer(ctx, &elb.CreateLoadBalancerInput{
				Name: aws.String(elbName(r.CloudName)), Subnets: subnets, Type: typ,
				SecurityGroups: property.Strings(r.Properties, "securityGroups"),
				Scheme:         elb.LoadBalancerSchemeEnumInternetFacing, Tags: elbTags(lbTags(r)),
			})
			return err
		})
		if err != nil {
			return provider.Object{}, err
		}
		lb = out.LoadBalancers[0]
	}
	arn := aws.ToString(lb.LoadBalancerArn)
	if err := k.setListener(ctx, settling, arn, tg, property.Int(r.Properties, "port", 80), property.String(r.Properties, "certificateArn")); err != nil {
		return provider.Object{}, err
	}
	return k.readAs(ctx, settling, arn)
}

// setListener makes the LB's listener forward port to tg, with cert; m is
// settling right after the load balancer was made. Creating or changing
// the listener names the target group, which may be new: those requests
// retry not-found.
func (k lbKind) setListener(ctx context.Context, m mode, arn string, tg elb.TargetGroup, port int, cert string) error {
	p := k.p
	proto, err := listenerProtocol(tg.Protocol, cert)
	if err != nil {
		return err
	}
	var certs []elb.Certificate
	if cert != "" {
		certs = []elb.Certificate{{CertificateArn: aws.String(cert)}}
	}
	l, err := k.listener(ctx, m, arn)
	if err != nil {
		return err
	}
	action := []elb.Action{{Type: elb.ActionTypeEnumForward, TargetGroupArn: tg.TargetGroupArn}}
	if l == nil {
		return p.call(ctx, "create listener", settling, func(ctx context.Context) error {
			err := p.elb.CreateListener(ctx, &elb.CreateListenerInput{
				LoadBalancerArn: aws.String(arn), Port: aws.Int32(int32(port)), Protocol: proto, DefaultActions: action, Certificates: certs,
			})
			if apiCode(err) == "DuplicateListener" {
				return nil // a resent request that had landed; the next apply converges it
			}
			return err
		})
	}
	haveCert := ""
	for _, c := range l.Certificates {
		haveCert = aws.ToString(c.CertificateArn)
	}
	sameTG := len(l.DefaultActions) == 1 && aws.ToString(l.DefaultActions[0].TargetGroupArn) == aws.ToString(tg.TargetGroupArn)
	if aws.ToInt32(l.Port) == int32(port) && sameTG && l.Protocol == proto && haveCert == cert {
		return nil
	}
	return p.call(ctx, "modify listener", settling, func(ctx context.Context) error {
		err := p.elb.ModifyListener(ctx, &elb.ModifyListenerInput{
			ListenerArn: l.ListenerArn, Port: aws.Int32(int32(port)), Protocol: proto, DefaultActions: action, Certificates: certs,
		})
		return err
	})
}

func (k lbKind) Update(ctx context.Context, id string, r provider.Resource, cur provider.Object) (provider.Object, error) {
	if want, ok := r.Properties["network"]; ok && want != cur.Properties["network"] {
		return provider.Object{}, fmt.Errorf("the network of a load balancer cannot change in place")
	}
	tgArn := property.String(r.Properties, "targetGroup")
	// A new target group (a replace of it in this apply) may be made a
	// moment ago.
	tg, err := tgKind(k).describe(ctx, settling, elb.DescribeTargetGroupsInput{TargetGroupArns: []string{tgArn}}, tgArn)
	if err != nil {
		return provider.Object{}, err
	}
	if _, err := listenerProtocol(tg.Protocol, property.String(r.Properties, "certificateArn")); err != nil {
		return provider.Object{}, err
	}
	if _, set := r.Properties["securityGroups"]; set {
		lb, err := k.describe(ctx, plain, elb.DescribeLoadBalancersInput{LoadBalancerArns: []string{id}}, id)
		if err != nil {
			return provider.Object{}, err
		}
		want := sortedStrs(property.Strings(r.Properties, "securityGroups"))
		if !value.Equal(property.List(want), property.List(sortedStrs(lb.SecurityGroups))) {
			err := k.p.call(ctx, "set load balancer security groups", settling, func(ctx context.Context) error {
				err := k.p.elb.SetSecurityGroups(ctx, &elb.SetSecurityGroupsInput{LoadBalancerArn: aws.String(id), SecurityGroups: want})
				return err
			})
			if err != nil {
				return provider.Object{}, err
			}
		}
	}
	if err := k.p.syncELBTags(ctx, id, lbTags(r)); err != nil {
		return provider.Object{}, err
	}
	if err := k.setListener(ctx, plain, id, tg, property.Int(r.Properties, "port", 80), property.String(r.Properties, "certificateArn")); err != nil {
		return provider.Object{}, err
	}
	return k.Read(ctx, id)
}

func (k lbKind) Delete(ctx context.Context, id string) error {
	if _, err := k.describe(ctx, plain, elb.DescribeLoadBalancersInput{LoadBalancerArns: []string{id}}, id); err != nil {
		return err
	}
	return k.p.whileInUse(ctx, "delete load balancer", func(ctx context.Context) error {
		err := k.p.elb.DeleteLoadBalancer(ctx, &elb.DeleteLoadBalancerInput{LoadBalancerArn: aws.String(id)})
		return err
	})
}
