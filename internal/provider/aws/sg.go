package aws

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws/ec2api"
	"github.com/kyku/action/internal/provider/property"
	"github.com/kyku/action/internal/value"
)

// sgKind maps SecurityGroup to a security group whose rules are converged
// by rule diff: only missing rules are authorized, only extra ones revoked.
// Egress is managed only when the egress property is set (the group is
// tagged kyku:egress=managed); otherwise AWS's default allow-all egress is
// left alone and not reported.
type sgKind struct{ p *Provider }

const tagEgress = "kyku:egress"

// rule is one permission for one CIDR in AWS terms.
type rule struct {
	proto    string // tcp, udp, icmp, -1
	from, to int32
	ports    bool
	cidr     string
}

func (r rule) key() string {
	return fmt.Sprintf("%s|%d|%d|%t|%s", r.proto, r.from, r.to, r.ports, r.cidr)
}

func rulesFromProps(v any) []rule {
	l, _ := v.([]any)
	var out []rule
	for _, x := range l {
		m, _ := x.(map[string]any)
		proto := property.StringOr(m, "protocol", "tcp")
		r := rule{proto: proto, cidr: property.String(m, "cidr")}
		port, hasPort := m["port"].(float64)
		switch {
		case proto == "all":
			r.proto = "-1"
		case proto == "icmp" && hasPort:
			r.from, r.to, r.ports = int32(port), -1, true
		case proto == "icmp":
			r.from, r.to, r.ports = -1, -1, true
		case hasPort:
			r.from, r.to, r.ports = int32(port), int32(port), true
		default:
			r.from, r.to, r.ports = 0, 65535, true
		}
		out = append(out, r)
	}
	return out
}

// protocolNames are the protocol numbers EC2 may report for the names
// Kyku writes (Amazon EC2 API Reference, IpPermission: IpProtocol is a
// name or a protocol number).
var protocolNames = sync.OnceValue(func() map[string]string {
	return map[string]string{"6": "tcp", "17": "udp", "1": "icmp", "all": "-1"}
})

// rulesFromAWS reads permissions as Kyku's rules, normalised so that a
// rule reads as it was written: a protocol number as its name, and no
// ports for protocol -1, which covers every port whatever range the API
// reports with it (Amazon EC2 API Reference, IpPermission, IpProtocol:
// "-1 ... traffic on all ports is allowed, regardless of any ports you
// specify"; some APIs report -1/-1 or 0/65535).
func rulesFromAWS(perms []ec2api.IpPermission) []rule {
	var out []rule
	for _, p := range perms {
		proto := aws.ToString(p.IpProtocol)
		if name, ok := protocolNames()[strings.ToLower(proto)]; ok {
			proto = name
		}
		for _, c := range p.IpRanges {
			r := rule{proto: proto, cidr: aws.ToString(c.CidrIp)}
			if p.FromPort != nil && proto != "-1" {
				r.from, r.to, r.ports = aws.ToInt32(p.FromPort), aws.ToInt32(p.ToPort), true
			}
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out
}

func ruleProps(rs []rule) []any {
	out := make([]any, 0, len(rs))
	for _, r := range rs {
		m := map[string]any{"protocol": r.proto, "cidr": r.cidr}
		switch {
		case r.proto == "-1":
			m["protocol"] = "all"
		case r.proto == "icmp" && r.from >= 0:
			m["port"] = float64(r.from)
		case r.proto != "icmp" && r.from == r.to:
			m["port"] = float64(r.from)
		}
		out = append(out, m)
	}
	return out
}

func perms(rs []rule) []ec2api.IpPermission {
	out := make([]ec2api.IpPermission, 0, len(rs))
	for _, r := range rs {
		p := ec2api.IpPermission{IpProtocol: aws.String(r.proto), IpRanges: []ec2api.IpRange{{CidrIp: aws.String(r.cidr)}}}
		if r.ports {
			p.FromPort, p.ToPort = aws.Int32(r.from), aws.Int32(r.to)
		}
		out = append(out, p)
	}
	return out
}

func (k sgKind) describe(ctx context.Context, m mode, in ec2api.DescribeSecurityGroupsInput, what string) (ec2api.SecurityGroup, error) {
	gs, err := k.p.securityGroups(ctx, m, in)
	if err != nil {
		return ec2api.SecurityGroup{}, err
	}
	if len(gs) == 0 {
		return ec2api.SecurityGroup{}, provider.NotFound("security group " + what)
	}
	return gs[0], nil
}

func sgObject(g ec2api.SecurityGroup) provider.Object {
	tags := fromEC2Tags(g.Tags)
	props := map[string]any{"network": aws.ToString(g.VpcId)}
	if in := rulesFromAWS(g.IpPermissions); len(in) > 0 {
		props["ingress"] = ruleProps(in)
	}
	if tags[tagEgress] == "managed" {
		props["egress"] = ruleProps(rulesFromAWS(g.IpPermissionsEgress))
	}
	return provider.NewObject(aws.ToString(g.GroupId), tags[tagNameAWS], property.SetTags(props, tags, systemTag), nil)
}

func (k sgKind) Lookup(ctx context.Context, name string) (provider.Object, error) {
	g, err := k.describe(ctx, plain, ec2api.DescribeSecurityGroupsInput{Filters: byName(name)}, name)
	if err != nil {
		return provider.Object{}, err
	}
	return sgObject(g), nil
}

func (k sgKind) Read(ctx context.Context, id string) (provider.Object, error) {
	return k.readAs(ctx, plain, id)
}

// readAs reads with mode m: settling right after a create or a rule
// change, when "not found" means not visible yet.
func (k sgKind) readAs(ctx context.Context, m mode, id string) (provider.Object, error) {
	g, err := k.describe(ctx, m, ec2api.DescribeSecurityGroupsInput{GroupIds: []string{id}}, id)
	if err != nil {
		return provider.Object{}, err
	}
	return sgObject(g), nil
}

func sgTags(r provider.Resource) map[string]string {
	if _, ok := r.Properties["egress"]; ok {
		return wantTags(r, map[string]string{tagEgress: "managed"})
	}
	return wantTags(r, nil)
}

func (k sgKind) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	if err := required(r, "network"); err != nil {
		return provider.Object{}, err
	}
	g, err := k.describe(ctx, plain, ec2api.DescribeSecurityGroupsInput{Filters: byName(r.CloudName)}, r.CloudName)
	if err != nil && !provider.IsNotFound(err) {
		return provider.Object{}, err
	}
	if err != nil {
		var out *ec2api.CreateSecurityGroupOutput
		// Group names are unique per VPC: a resent request that had
		// landed gets InvalidGroup.Duplicate, which means "ours".
		err = k.p.call(ctx, "create security group", settling, func(ctx context.Context) (err error) {
			out, err = k.p.ec2.CreateSecurityGroup(ctx, &ec2api.CreateSecurityGroupInput{
				GroupName:         aws.String(r.CloudName),
				Description:       aws.String("Kyku " + r.Prefix + "/" + value.SafeName(r.Name)),
				VpcId:             aws.String(property.String(r.Properties, "network")),
				TagSpecifications: tagSpec(ec2api.ResourceTypeSecurityGroup, sgTags(r)),
			})
			return err
		})
		in := ec2api.DescribeSecurityGroupsInput{Filters: append(byName(r.CloudName), filter("vpc-id", property.String(r.Properties, "network")))}
		switch {
		case apiCode(err) == "InvalidGroup.Duplicate":
		case err != nil:
			return provider.Object{}, err
		default:
			in = ec2api.DescribeSecurityGroupsInput{GroupIds: []string{aws.ToString(out.GroupId)}}
		}
		if g, err = k.describe(ctx, settling, in, r.CloudName); err != nil {
			return provider.Object{}, err
		}
	}
	if err := k.converge(ctx, g, r); err != nil {
		return provider.Object{}, err
	}
	return k.readAs(ctx, settling, aws.ToString(g.GroupId))
}

func (k sgKind) converge(ctx context.Context, g ec2api.SecurityGroup, r provider.Resource) error {
	id := aws.ToString(g.GroupId)
	if err := k.diff(ctx, id, false, rulesFromAWS(g.IpPermissions), rulesFromProps(r.Properties["ingress"])); err != nil {
		return err
	}
	want := []rule{{proto: "-1", cidr: "0.0.0.0/0"}}
	if _, ok := r.Properties["egress"]; ok {
		want = rulesFromProps(r.Properties["egress"])
	}
	return k.diff(ctx, id, true, rulesFromAWS(g.IpPermissionsEgress), want)
}

// diff authorizes the rules in want but not have and revokes the rest.
func (k sgKind) diff(ctx context.Context, id string, egress bool, have, want []rule) error {
	hk, wk := map[string]bool{}, map[string]bool{}
	for _, r := range have {
		hk[r.key()] = true
	}
	var add, remove []rule
	for _, r := range want {
		if !hk[r.key()] && !wk[r.key()] {
			add = append(add, r)
		}
		wk[r.key()] = true
	}
	for _, r := range have {
		if !wk[r.key()] {
			remove = append(remove, r)
		}
	}
	p, dir := k.p, "ingress"
	if egress {
		dir = "egress"
	}
	if len(remove) > 0 {
		err := p.call(ctx, "revoke "+dir, settling, func(ctx context.Context) (err error) {
			if egress {
				_, err = p.ec2.RevokeSecurityGroupEgress(ctx, &ec2api.RevokeSecurityGroupEgressInput{GroupId: aws.String(id), IpPermissions: perms(remove)})
			} else {
				_, err = p.ec2.RevokeSecurityGroupIngress(ctx, &ec2api.RevokeSecurityGroupIngressInput{GroupId: aws.String(id), IpPermissions: perms(remove)})
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	if len(add) == 0 {
		return nil
	}
	return p.call(ctx, "authorize "+dir, settling, func(ctx context.Context) (err error) {
		if egress {
			_, err = p.ec2.AuthorizeSecurityGroupEgress(ctx, &ec2api.AuthorizeSecurityGroupEgressInput{GroupId: aws.String(id), IpPermissions: perms(add)})
		} else {
			_, err = p.ec2.AuthorizeSecurityGroupIngress(ctx, &ec2api.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(id), IpPermissions: perms(add)})
		}
		if apiCode(err) == "InvalidPermission.Duplicate" {
			return nil // a retried request that had landed
		}
		return err
	})
}

func (k sgKind) Update(ctx context.Context, id string, r provider.Resource, cur provider.Object) (provider.Object, error) {
	g, err := k.describe(ctx, plain, ec2api.DescribeSecurityGroupsInput{GroupIds: []string{id}}, id)
	if err != nil {
		return provider.Object{}, err
	}
	want := sgTags(r)
	want[tagNameAWS] = fromEC2Tags(g.Tags)[tagNameAWS]
	if err := k.p.syncEC2Tags(ctx, id, fromEC2Tags(g.Tags), want); err != nil {
		return provider.Object{}, err
	}
	if err := k.converge(ctx, g, r); err != nil {
		return provider.Object{}, err
	}
	return k.Read(ctx, id)
}

func (k sgKind) Delete(ctx context.Context, id string) error {
	if !strings.HasPrefix(id, "sg-") {
		return fmt.Errorf("%q is not a security group id", id)
	}
	if err := k.p.waitInterfaces(ctx, "group-id", id); err != nil {
		return err
	}
	return k.p.whileInUse(ctx, "delete security group", func(ctx context.Context) error {
		_, err := k.p.ec2.DeleteSecurityGroup(ctx, &ec2api.DeleteSecurityGroupInput{GroupId: aws.String(id)})
		return err
	})
}
