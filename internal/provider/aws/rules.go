package aws

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kyku/action/internal/provider"
	elb "github.com/kyku/action/internal/provider/aws/elbapi"
	"github.com/kyku/action/internal/provider/kinds"
	"github.com/kyku/action/internal/provider/property"
	"github.com/kyku/action/internal/value"
)

// rules are AWS's replace rules, one per property of every type: what
// planning promises. What the APIs cannot change is fixed (below) and the
// kinds' own guards; the conformance suite's agreement holds them
// together against awstest.
var rules = sync.OnceValue(func() map[string]provider.Rules {
	return map[string]provider.Rules{
		"Vpc": {
			"cidr":                provider.Replaces("an AWS VPC's primary CIDR block cannot change"),
			"distributeAcrossAzs": provider.InPlace("a tag; only which auto-subnets exist changes"),
			"tags":                provider.InPlace("CreateTags, DeleteTags"),
		},
		"Subnet": {
			"network": provider.Replaces("an AWS subnet belongs to its VPC for life"),
			"cidr":    provider.Replaces("an AWS subnet's CIDR block cannot change"),
			"zone":    provider.Replaces("an AWS subnet lives in one availability zone"),
			"public":  provider.InPlace("ModifySubnetAttribute and the route table"),
			"tags":    provider.InPlace("CreateTags, DeleteTags"),
		},
		"SecurityGroup": {
			"network": provider.Replaces("an AWS security group belongs to its VPC for life"),
			"ingress": provider.InPlace("only the difference is authorised and revoked"),
			"egress":  provider.InPlace("only the difference is authorised and revoked"),
			"tags":    provider.InPlace("CreateTags, DeleteTags"),
		},
		"SshKey": {
			"publicKey": provider.Replaces("an EC2 key pair's public key cannot change"),
			"tags":      provider.InPlace("CreateTags, DeleteTags"),
		},
		"Vm": {
			"network":        provider.Replaces("an EC2 instance stays in the VPC of its network interface"),
			"subnet":         provider.Replaces("an EC2 instance's primary network interface stays in its subnet"),
			"securityGroups": provider.InPlace("ModifyInstanceAttribute"),
			"sshKeys":        provider.Replaces("EC2 gives an instance its key pair only at launch"),
			"size":           provider.InPlace("stop, modify, start (the public IP changes)"),
			"image":          provider.Replaces("an EC2 instance's AMI is chosen at launch"),
			"userData":       provider.Replaces("an EC2 instance runs its user data only at first boot"),
			"tags":           provider.InPlace("CreateTags, DeleteTags"),
		},
		"Database": {
			"network": provider.Replaces("an RDS instance's DB subnet group cannot move to another VPC"),
			"engine":  provider.Replaces("an RDS instance's engine cannot change"),
			// A downgrade, a storage shrink or growth under 10% is refused at
			// plan: PlanChange says so.
			"version":        provider.InPlace("ModifyDBInstance (a major version with AllowMajorVersionUpgrade)"),
			"size":           provider.InPlace("ModifyDBInstance"),
			"storageGb":      provider.InPlace("ModifyDBInstance: it only grows, by 10% at least"),
			"securityGroups": provider.InPlace("ModifyDBInstance"),
			"tags":           provider.InPlace("AddTagsToResource, RemoveTagsFromResource"),
		},
		"TargetGroup": {
			"port":     provider.Replaces("an ELBv2 target group's port cannot change"),
			"protocol": provider.Replaces("an ELBv2 target group's protocol cannot change"),
			"targets":  provider.InPlace("RegisterTargets, DeregisterTargets"),
			"tags":     provider.InPlace("AddTags, RemoveTags"),
		},
		"LoadBalancer": {
			"network": provider.Replaces("an ELBv2 load balancer stays in its VPC"),
			"port":    provider.InPlace("ModifyListener"),
			// A target group of the other kind (tcp for http) changes the
			// load balancer's type: PlanChange says so.
			"targetGroup":    provider.InPlace("ModifyListener"),
			"securityGroups": provider.InPlace("SetSecurityGroups"),
			"certificateArn": provider.InPlace("ModifyListener"),
			"tags":           provider.InPlace("AddTags, RemoveTags"),
		},
	}
})

// fixed is what the AWS APIs cannot change on an existing object
// (kinds.Set.Fixed: Update refuses it before any request), each with the
// API Reference that says so. The Vm, target group and load balancer
// kinds refuse theirs themselves (vm.go, elb.go, lb.go).
var fixed = sync.OnceValue(func() map[string]map[string]string {
	return map[string]map[string]string{
		"Vpc": {"cidr": "no EC2 action changes a VPC's primary CIDR block (Amazon EC2 API Reference: CreateVpc sets it; AssociateVpcCidrBlock only adds secondary ones)"},
		"Subnet": {
			"network": "no EC2 action moves a subnet (Amazon EC2 API Reference: CreateSubnet sets VpcId)",
			"cidr":    "no EC2 action changes a subnet's CIDR block (Amazon EC2 API Reference: CreateSubnet sets CidrBlock)",
			"zone":    "no EC2 action moves a subnet (Amazon EC2 API Reference: CreateSubnet sets AvailabilityZone)",
		},
		"SecurityGroup": {"network": "no EC2 action moves a security group (Amazon EC2 API Reference: CreateSecurityGroup sets VpcId)"},
		"SshKey":        {"publicKey": "no EC2 action changes a key pair's material (Amazon EC2 API Reference: ImportKeyPair)"},
		"Vm":            {"image": "no EC2 action changes an instance's AMI (Amazon EC2 API Reference: RunInstances sets ImageId)"},
		"Database":      {"engine": "ModifyDBInstance takes no Engine for an RDS instance (Amazon RDS API Reference: ModifyDBInstance)"},
	}
})

// checkChange is AWS's check of a change (kinds.Planner.Check): what RDS
// and ELBv2 refuse depending on the values.
//
//   - Database storageGb: RDS cannot reduce allocated storage, and rounds
//     growth under 10% up to 10% (Amazon RDS API Reference:
//     ModifyDBInstance, AllocatedStorage): both are refused at plan (the
//     rounding would leave the plan untrue).
//   - Database storageGb while RDS takes no storage change: during
//     storage-optimization, or within 6 hours of the last storage change
//     ("whichever is longer": Amazon RDS User Guide, Increasing DB
//     instance storage capacity), read from the instance's status and
//     its events (DescribeEvents): refused at plan with when it can be.
//   - Database version: RDS upgrades, never downgrades (Amazon RDS API
//     Reference: ModifyDBInstance, EngineVersion): refused at plan.
//   - LoadBalancer targetGroup: a target group of the other kind (tcp for
//     a network load balancer, http or https for an application one)
//     changes the load balancer's type, which ELBv2 cannot do (Elastic
//     Load Balancing API Reference: CreateLoadBalancer sets Type): a
//     replace.
//   - TargetGroup: replaced by making the new one first, as a
//     listener's target group cannot be deleted.
//   - LoadBalancer securityGroups of a network load balancer: one made
//     without security groups cannot get them, and one made with them
//     cannot lose them all (Elastic Load Balancing API Reference:
//     SetSecurityGroups): a replace.
func (p *Provider) checkChange(ctx context.Context, req kinds.Change) (provider.ChangePlan, error) {
	var out provider.ChangePlan
	if req.ID == "" {
		return out, nil
	}
	changed := func(prop string) bool { return slices.Contains(req.Changed, prop) }
	switch req.Type {
	case "TargetGroup":
		// A target group a listener forwards to cannot be deleted
		// (ResourceInUse: Elastic Load Balancing API Reference,
		// DeleteTargetGroup): its replacement is made first, the load
		// balancer moved to it, then it goes.
		out.CreateBeforeDestroy = true
	case "Database":
		if changed("storageGb") {
			have, want := property.Int(req.Prior, "storageGb", 20), property.Int(req.Properties, "storageGb", 20)
			if err := checkStorage(int32(have), int32(want)); err != nil {
				out.Refusals = append(out.Refusals, provider.Refusal{Path: "storageGb", Reason: err.Error()})
			} else if want != have {
				reason, err := dbKind{p}.storageBusy(ctx, dbIdent(req.ID))
				if err != nil {
					return out, err
				}
				if reason != "" {
					out.Refusals = append(out.Refusals, provider.Refusal{Path: "storageGb", Reason: reason})
				}
			}
		}
		if changed("version") {
			have, want := property.String(req.Prior, "version"), property.String(req.Properties, "version")
			if have != "" && want != "" && want != value.Unknown && olderVersion(want, have) {
				out.Refusals = append(out.Refusals, provider.Refusal{Path: "version", Reason: fmt.Sprintf("RDS cannot downgrade %s to version %s", have, want)})
			}
		}
	case "LoadBalancer":
		return p.planLB(ctx, req, changed)
	}
	return out, nil
}

// planLB plans a load balancer change: a target group of the other kind
// or network load balancer security groups that ELBv2 cannot change.
func (p *Provider) planLB(ctx context.Context, req kinds.Change, changed func(string) bool) (provider.ChangePlan, error) {
	var out provider.ChangePlan
	if !changed("targetGroup") && !changed("securityGroups") {
		return out, nil
	}
	stream := func(arn string) (bool, bool, error) {
		if arn == "" || strings.Contains(arn, value.Unknown) {
			return false, false, nil
		}
		tg, err := tgKind{p}.describe(ctx, plain, elb.DescribeTargetGroupsInput{TargetGroupArns: []string{arn}}, arn)
		if provider.IsNotFound(err) {
			return false, false, nil
		}
		if err != nil {
			return false, false, err
		}
		return strings.EqualFold(string(tg.Protocol), "tcp"), true, nil
	}
	oldNet, oldKnown, err := stream(property.String(req.Prior, "targetGroup"))
	if err != nil {
		return out, err
	}
	newNet, newKnown, err := stream(property.String(req.Properties, "targetGroup"))
	if err != nil {
		return out, err
	}
	if changed("targetGroup") && oldKnown && newKnown && oldNet != newNet {
		out.Replace = append(out.Replace, provider.Forced{Path: "targetGroup", Reason: "an ELBv2 load balancer's type cannot change (a tcp target group needs a network load balancer, http and https an application one)"})
	}
	if changed("securityGroups") && oldKnown && oldNet {
		had, has := len(property.Strings(req.Prior, "securityGroups")) > 0, len(property.Strings(req.Properties, "securityGroups")) > 0
		if had != has {
			out.Replace = append(out.Replace, provider.Forced{Path: "securityGroups", Reason: "a network load balancer keeps having security groups, or not having them, as it was made"})
		}
	}
	return out, nil
}

// olderVersion reports whether engine version a is older than b, compared
// number by number ("15.4" < "16", "16" = "16.4").
func olderVersion(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, err1 := strconv.Atoi(as[i])
		y, err2 := strconv.Atoi(bs[i])
		if err1 != nil || err2 != nil {
			return false
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// keptBy: EC2 does not delete a security
// group an instance, a load balancer or a database is in, or a subnet
// instances are in (DependencyViolation: Amazon EC2 API Reference,
// DeleteSecurityGroup, DeleteSubnet); Elastic Load Balancing does not
// delete a target group a listener forwards to (ResourceInUse: Elastic
// Load Balancing API Reference, DeleteTargetGroup).
func keptBy(typ string) []provider.Use {
	switch typ {
	case "SecurityGroup":
		return []provider.Use{{Type: "Vm", Property: "securityGroups"}, {Type: "LoadBalancer", Property: "securityGroups"}, {Type: "Database", Property: "securityGroups"}}
	case "Subnet":
		return []provider.Use{{Type: "Vm", Property: "subnet"}}
	case "TargetGroup":
		return []provider.Use{{Type: "LoadBalancer", Property: "targetGroup"}}
	}
	return nil
}

// PlanChange plans req with Kyku's shared planner, AWS's rules and its
// check (checkChange).
func (p *Provider) PlanChange(ctx context.Context, req provider.ChangeRequest) (provider.ChangePlan, error) {
	return kinds.Planner{Rules: func(typ string) provider.Rules { return rules()[typ] }, Check: p.checkChange}.PlanChange(ctx, req)
}
