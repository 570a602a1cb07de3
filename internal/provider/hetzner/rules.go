package hetzner

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"sync"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/kinds"
	"github.com/kyku/action/internal/provider/property"
	"github.com/kyku/action/internal/value"
)

// rules are Hetzner's replace rules, one per property of every type the
// provider carries: what planning promises. What the API cannot change is
// fixed (below), what Kind updates do is in each kind's file; the
// conformance suite's agreement holds them together against hcloudtest.
var rules = sync.OnceValue(func() map[string]provider.Rules {
	return map[string]provider.Rules{
		"Vpc": {
			"cidr":                provider.Replaces("Kyku does not change a Hetzner network's IP range in place"),
			"distributeAcrossAzs": provider.InPlace("a label; only which auto-subnets exist changes"),
			"tags":                provider.InPlace("labels"),
		},
		"Subnet": {
			"network": provider.Replaces("a Hetzner subnet is part of its network"),
			"cidr":    provider.Replaces("a Hetzner subnet's IP range cannot change (subnets are only added and deleted)"),
			"zone":    provider.Replaces("a Hetzner subnet's network zone cannot change (subnets are only added and deleted)"),
			"public":  provider.InPlace("a label of the network"),
			"tags":    provider.InPlace("refused at plan: subnets carry no labels"),
		},
		"SecurityGroup": {
			// A firewall belongs to no network: the reference is a label.
			"network": provider.InPlace("a label: Hetzner firewalls belong to no network"),
			"ingress": provider.InPlace("set_rules"),
			"egress":  provider.InPlace("set_rules"),
			"tags":    provider.InPlace("labels"),
		},
		"SshKey": {
			"publicKey": provider.Replaces("a Hetzner SSH key's public key cannot change"),
			"tags":      provider.InPlace("labels"),
		},
		"Vm": {
			"network":        provider.InPlace("detach from the old network, attach to the new"),
			"subnet":         provider.InPlace("detach and attach in the subnet's range"),
			"securityGroups": provider.InPlace("apply and remove firewalls"),
			"sshKeys":        provider.Replaces("Hetzner installs a server's SSH keys only when it creates the server"),
			// A change of architecture or storage type, or to a smaller disk,
			// is a replace too: PlanChange says so.
			"size":     provider.InPlace("power off, change type (disk kept), power on"),
			"image":    provider.Replaces("Kyku does not rebuild a Hetzner server from another image in place"),
			"userData": provider.Replaces("Hetzner runs a server's user data only when it creates the server"),
			"tags":     provider.InPlace("labels"),
		},
		"TargetGroup": {
			"port":     provider.InPlace("the label and the load balancers' services follow"),
			"protocol": provider.InPlace("the label and the load balancers' services follow"),
			"targets":  provider.InPlace("labels of the servers"),
			"tags":     provider.InPlace("refused at plan: target groups carry no tags"),
		},
		"LoadBalancer": {
			"network":        provider.Replaces("Kyku does not move a Hetzner load balancer to another network in place"),
			"port":           provider.InPlace("the service moves to the new port"),
			"targetGroup":    provider.InPlace("the label-selector target changes"),
			"securityGroups": provider.InPlace("refused at plan: load balancers take no firewalls"),
			"certificateArn": provider.InPlace("refused at plan: certificates are not supported"),
			"tags":           provider.InPlace("labels"),
		},
	}
})

// fixed is what the Hetzner Cloud API cannot change on an existing object
// (kinds.Set.Fixed: Update refuses it before any request), each with the
// API reference that says so.
var fixed = sync.OnceValue(func() map[string]map[string]string {
	return map[string]map[string]string{
		// Networks: Update a Network takes name, labels and
		// expose_routes_to_vswitch; only change_ip_range touches the range,
		// and Kyku does not use it.
		"Vpc": {"cidr": "Kyku does not change a network's IP range (Hetzner Cloud API reference, Networks: change_ip_range is not used)"},
		// Networks: a subnet has no update; add_subnet and delete_subnet only.
		"Subnet": {
			"network": "a subnet is part of its network (Hetzner Cloud API reference, Networks: add_subnet, delete_subnet)",
			"cidr":    "a subnet has no update action (Hetzner Cloud API reference, Networks: add_subnet, delete_subnet)",
			"zone":    "a subnet has no update action (Hetzner Cloud API reference, Networks: add_subnet, delete_subnet)",
		},
		// SSH Keys: Update an SSH key takes name and labels only.
		"SshKey": {"publicKey": "an SSH key's public key cannot change (Hetzner Cloud API reference, SSH Keys: Update an SSH key takes name and labels)"},
		// Servers: Update a Server takes name and labels; ssh_keys and
		// user_data are Create a Server's only (rebuild is not used). The
		// server kind refuses an sshKeys change itself (a set: order aside).
		"Vm": {"image": "Kyku does not rebuild a server (Hetzner Cloud API reference, Servers: rebuild is not used)"},
	}
})

// checkChange is Hetzner's check of a change (kinds.Planner.Check): a
// Vm's new size is a
// rescale only when the server can change to that type in place — the
// same architecture and storage type, and a disk at least as large as the
// server's (Hetzner Cloud API reference, Server Actions: Change the Type
// of a Server; Kyku keeps the disk, so it can shrink again). Otherwise the
// server is replaced, and the plan says why.
//
// Replaced objects the API does not delete while used are made anew
// first (provider.ChangePlan.CreateBeforeDestroy): a firewall applied to
// servers (resource_in_use: Hetzner Cloud API reference, Firewalls:
// Delete a Firewall), a subnet servers are attached in (service_error,
// "servers are attached") when its replacement can be added beside it —
// in another network, or not overlapping it.
func (p *Provider) checkChange(ctx context.Context, req kinds.Change) (provider.ChangePlan, error) {
	var out provider.ChangePlan
	switch req.Type {
	case "SecurityGroup":
		out.CreateBeforeDestroy = true
		return out, nil
	case "Subnet":
		out.CreateBeforeDestroy = besideIt(req.Prior, req.Properties)
		return out, nil
	}
	if req.Type != "Vm" || req.ID == "" || !slices.Contains(req.Changed, "size") {
		return out, nil
	}
	newSize := property.StringOr(req.Properties, "size", "small")
	if newSize == value.Unknown {
		return out, nil
	}
	cat, err := p.catalog(ctx)
	if err != nil {
		return out, err
	}
	newType, err := cat.pick(newSize, p.opts.Location)
	if err != nil {
		return out, nil // CheckCloud refuses a size the location does not sell
	}
	sid, err := strconv.ParseInt(req.ID, 10, 64)
	if err != nil {
		return out, nil
	}
	s, err := p.servers().byID(ctx, sid)
	if err != nil {
		if provider.IsNotFound(err) {
			return out, nil // gone: the plan creates it
		}
		return out, err
	}
	if s.ServerType == nil || isSize(newSize, s.ServerType.Name) {
		return out, nil // already that size: nothing to resize
	}
	from, to := cat.types[s.ServerType.Name], cat.types[newType]
	if from == nil || to == nil {
		return out, nil
	}
	disk := s.PrimaryDiskSize
	if disk == 0 {
		disk = from.Disk
	}
	if reason := resizeRefusal(from, to, disk); reason != "" {
		out.Replace = append(out.Replace, provider.Forced{Path: "size", Reason: reason})
	}
	return out, nil
}

// resizeRefusal says why a server of type from with a disk of disk GB
// cannot change to type to in place, or "".
func resizeRefusal(from, to *serverTypeInfo, disk int) string {
	switch {
	case from.Architecture != to.Architecture:
		return fmt.Sprintf("a Hetzner server cannot change architecture in place (%s is %s, %s is %s)", from.Name, from.Architecture, to.Name, to.Architecture)
	case from.StorageType != to.StorageType:
		return fmt.Sprintf("a Hetzner server cannot change storage type in place (%s has %s disks, %s %s)", from.Name, from.StorageType, to.Name, to.StorageType)
	case to.Disk < disk:
		return fmt.Sprintf("a Hetzner server's disk cannot shrink (the server has %d GB, %s has %d GB)", disk, to.Name, to.Disk)
	}
	return ""
}

// besideIt reports whether a subnet with props can be added while one
// with old exists: in another network, or with a range not overlapping
// old's (Hetzner Cloud API reference, Networks: Add a subnet refuses an
// overlap).
func besideIt(old, props map[string]any) bool {
	if fmt.Sprint(old["network"]) != fmt.Sprint(props["network"]) {
		return true
	}
	a, err1 := netip.ParsePrefix(fmt.Sprint(old["cidr"]))
	b, err2 := netip.ParsePrefix(fmt.Sprint(props["cidr"]))
	return err1 == nil && err2 == nil && !a.Overlaps(b)
}

// keptBy: the API does not delete a firewall
// applied to servers (resource_in_use: Hetzner Cloud API reference,
// Firewalls: Delete a Firewall) or a subnet servers are attached in
// (service_error, "servers are attached": Networks: Delete a subnet).
func keptBy(typ string) []provider.Use {
	switch typ {
	case "SecurityGroup":
		return []provider.Use{{Type: "Vm", Property: "securityGroups"}}
	case "Subnet":
		return []provider.Use{{Type: "Vm", Property: "subnet"}}
	}
	return nil
}

// PlanChange plans req with Kyku's shared planner, Hetzner's rules and its
// check (checkChange).
func (p *Provider) PlanChange(ctx context.Context, req provider.ChangeRequest) (provider.ChangePlan, error) {
	return kinds.Planner{Rules: func(typ string) provider.Rules { return rules()[typ] }, Check: p.checkChange}.PlanChange(ctx, req)
}
