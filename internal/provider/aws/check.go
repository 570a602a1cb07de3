package aws

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/value"
)

// AWS's documented limits, checked at plan time.
const (
	// maxRulesPerGroup: "Inbound or outbound rules per security group: 60"
	// (Amazon VPC User Guide, Amazon VPC quotas: security groups; the
	// default quota, per direction).
	maxRulesPerGroup = 60
	// maxGroupsPerInstance: "Security groups per network interface: 5"
	// (Amazon VPC quotas; the default quota).
	maxGroupsPerInstance = 5
	// A VPC or subnet CIDR block is /16 to /28 (Amazon EC2 API
	// Reference: CreateVpc, CreateSubnet, CidrBlock).
	minBlockBits, maxBlockBits = 16, 28
	// RDS general purpose storage is 20 to 65,536 GiB (Amazon RDS API
	// Reference: CreateDBInstance, AllocatedStorage).
	minStorageGb, maxStorageGb = 20, 65536
)

// placeholderPrefix stands in for the deploy prefix when a name is
// checked before planning (it is 8 hex characters; a digit first makes
// the longest RDS identifier, "db-…").
const placeholderPrefix = "00000000"

// CheckResources: AWS's value rules,
// documented limits and name rules, at plan time and at `kyku validate`.
func (p *Provider) CheckResources(rs []provider.Desired) []provider.Refusal {
	var out []provider.Refusal
	for _, r := range rs {
		refuse := func(path, format string, args ...any) {
			out = append(out, provider.Refusal{Resource: r.Name, Path: path, Reason: fmt.Sprintf(format, args...)})
		}
		props := r.Properties
		if err := p.CheckName(r.Type, placeholderPrefix+"-"+value.SafeName(r.Name)); err != nil {
			refuse("", "aws refuses its name: %s", strings.ReplaceAll(err.Error(), placeholderPrefix, "<deploy prefix>"))
		}
		checkPort := func(path string, v any) {
			if f, ok := v.(float64); ok && (f < 1 || f > 65535) {
				refuse(path, "port %v is not between 1 and 65535", f)
			}
		}
		switch r.Type {
		case "Vpc", "Subnet":
			if s, ok := literal(props["cidr"]); ok {
				if reason := checkBlock(s); reason != "" {
					refuse("cidr", "%s", reason)
				}
			}
		case "SecurityGroup":
			for _, dir := range []string{"ingress", "egress"} {
				l, _ := props[dir].([]any)
				if len(l) > maxRulesPerGroup {
					refuse(dir, "an AWS security group takes at most %d %s rules, not %d", maxRulesPerGroup, dir, len(l))
				}
				for i, raw := range l {
					m, _ := raw.(map[string]any)
					at := fmt.Sprintf("%s[%d]", dir, i)
					if s, ok := literal(m["cidr"]); ok {
						if pfx, err := netip.ParsePrefix(s); err != nil || pfx != pfx.Masked() {
							refuse(at+".cidr", "%q is not a network address in CIDR notation (e.g. 10.0.0.0/16)", s)
						}
					}
					checkPort(at+".port", m["port"])
				}
			}
		case "Vm":
			if l, _ := props["securityGroups"].([]any); len(l) > maxGroupsPerInstance {
				refuse("securityGroups", "an EC2 instance takes at most %d security groups, not %d", maxGroupsPerInstance, len(l))
			}
			if l, _ := props["sshKeys"].([]any); len(l) > 1 {
				refuse("sshKeys", "an EC2 instance takes one key pair, not %d", len(l))
			}
			if s, ok := literal(props["size"]); ok {
				if _, err := instanceType(s); err != nil {
					refuse("size", "%v", err)
				}
			}
		case "Database":
			if f, ok := props["storageGb"].(float64); ok && (f < minStorageGb || f > maxStorageGb) {
				refuse("storageGb", "RDS storage is %d to %d GB, not %v", minStorageGb, maxStorageGb, f)
			}
			if s, ok := literal(props["size"]); ok {
				if _, err := dbClass(s); err != nil {
					refuse("size", "%v", err)
				}
			}
		case "TargetGroup", "LoadBalancer":
			checkPort("port", props["port"])
			if c, ok := literal(props["certificateArn"]); ok && c != "" && !strings.HasPrefix(c, "arn:aws:acm:") && !strings.HasPrefix(c, "arn:aws:iam::") {
				refuse("certificateArn", "%q is not an ACM (arn:aws:acm:…) or IAM (arn:aws:iam::…) certificate ARN", c)
			}
		}
		if tags, ok := props["tags"].(map[string]any); ok {
			checkTags(tags, refuse)
		}
	}
	return out
}

// checkTags refuses tags AWS refuses: keys of 128 and values of 256
// characters at most, no "aws:" prefix, and none of Kyku's own keys
// (Amazon EC2 API Reference: CreateTags, Tag).
func checkTags(tags map[string]any, refuse func(path, format string, args ...any)) {
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		v, _ := tags[k].(string)
		switch {
		case len(k) > 128:
			refuse("tags."+k, "an AWS tag key is at most 128 characters")
		case strings.HasPrefix(strings.ToLower(k), "aws:"):
			refuse("tags."+k, "tag keys starting with aws: are AWS's own")
		case strings.HasPrefix(k, "kyku:") || k == tagNameAWS:
			refuse("tags."+k, "tag %q is one of Kyku's own on AWS", k)
		case len(v) > 256:
			refuse("tags."+k, "an AWS tag value is at most 256 characters")
		}
	}
}

// checkBlock says why s cannot be a VPC or subnet CIDR block, or "".
func checkBlock(s string) string {
	pfx, err := netip.ParsePrefix(s)
	switch {
	case err != nil || !pfx.Addr().Is4():
		return fmt.Sprintf("%q is not an IPv4 network in CIDR notation (e.g. 10.0.0.0/16)", s)
	case pfx != pfx.Masked():
		return fmt.Sprintf("%q has host bits set: the network is %s", s, pfx.Masked())
	case pfx.Bits() < minBlockBits || pfx.Bits() > maxBlockBits:
		return fmt.Sprintf("an AWS CIDR block is /%d to /%d, not /%d", minBlockBits, maxBlockBits, pfx.Bits())
	}
	return ""
}

// literal is v as a string written out in the config (no reference).
func literal(v any) (string, bool) {
	s, ok := v.(string)
	return s, ok && !strings.Contains(s, "${")
}
