package sim

import (
	"context"
	"sync"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/kinds"
)

// rules are the simulator's replace rules, one per property of every
// type: what planning promises. What the simulated API refuses to change
// in place is declared separately (fixed, in check.go); the agreement
// test holds the two together.
var rules = sync.OnceValue(func() map[string]provider.Rules {
	return map[string]provider.Rules{
		"Vpc": {
			"cidr":                provider.Replaces("a sim network's address range is fixed when it is made"),
			"distributeAcrossAzs": provider.InPlace("Kyku's own: only which auto-subnets exist changes"),
			"tags":                provider.InPlace(""),
		},
		"Subnet": {
			"network": provider.Replaces("a sim subnet belongs to its network for life"),
			"cidr":    provider.Replaces("a sim subnet's address range is fixed when it is made"),
			"zone":    provider.Replaces("a sim subnet stays in the zone it was made in"),
			"public":  provider.InPlace(""),
			"tags":    provider.InPlace(""),
		},
		"SecurityGroup": {
			"network": provider.Replaces("a sim security group belongs to its network for life"),
			"ingress": provider.InPlace("rules are replaced as a set"),
			"egress":  provider.InPlace("rules are replaced as a set"),
			"tags":    provider.InPlace(""),
		},
		"SshKey": {
			"publicKey": provider.Replaces("the sim keeps a key's public half as it was imported"),
			"tags":      provider.InPlace(""),
		},
		"Vm": {
			"network":        provider.InPlace("the machine moves with its interface"),
			"subnet":         provider.InPlace("the machine moves with its interface"),
			"securityGroups": provider.InPlace(""),
			"sshKeys":        provider.InPlace(""),
			"size":           provider.InPlace("resized in place"),
			"image":          provider.Replaces("a sim machine boots its image only when it is made"),
			"userData":       provider.Replaces("user data runs only at a sim machine's first boot"),
			"tags":           provider.InPlace(""),
		},
		"Database": {
			"network":        provider.InPlace(""),
			"engine":         provider.Replaces("a sim database's engine is fixed when it is made"),
			"version":        provider.InPlace("upgraded in place"),
			"size":           provider.InPlace("resized in place"),
			"storageGb":      provider.InPlace(""),
			"securityGroups": provider.InPlace(""),
			"tags":           provider.InPlace(""),
		},
		"TargetGroup": {
			"port":     provider.InPlace(""),
			"protocol": provider.InPlace(""),
			"targets":  provider.InPlace(""),
			"tags":     provider.InPlace(""),
		},
		"LoadBalancer": {
			"network":        provider.InPlace(""),
			"port":           provider.InPlace(""),
			"targetGroup":    provider.InPlace(""),
			"securityGroups": provider.InPlace(""),
			"certificateArn": provider.InPlace(""),
			"tags":           provider.InPlace(""),
		},
	}
})

// PlanChange plans req with Kyku's shared planner, the simulator's rules
// and its check (checkChange).
func (p *Provider) PlanChange(ctx context.Context, req provider.ChangeRequest) (provider.ChangePlan, error) {
	return kinds.Planner{Rules: func(typ string) provider.Rules { return rules()[typ] }, Check: p.checkChange}.PlanChange(ctx, req)
}
