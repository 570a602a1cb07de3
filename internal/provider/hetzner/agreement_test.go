package hetzner_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/hetzner"
	"github.com/kyku/action/internal/provider/hetzner/hcloudtest"
	"github.com/kyku/action/internal/provider/providertest"
)

// agreement holds Hetzner's rules to what the test server does.
func agreement() *providertest.Agreement {
	return &providertest.Agreement{
		Types: []string{"Vpc", "Subnet", "SecurityGroup", "SshKey", "Vm", "TargetGroup", "LoadBalancer"},
		Start: func(t *testing.T) (provider.Provider, providertest.Holds) {
			clk := &clock{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
			c := hcloudtest.New(hcloudtest.Options{Now: clk.Now})
			t.Cleanup(c.Close)
			p := hetzner.NewWithClient(hetzner.NewClient(c.URL(), c.Token(), nil), hetzner.Options{
				Location: "fsn1", MaxAttempts: 8, Backoff: time.Second, MaxBackoff: 30 * time.Second,
				PollInterval: time.Second, MaxPolls: 60, Now: clk.Now, Sleep: clk.Sleep,
			})
			// The API does not report a server's user data; the fake keeps it.
			holds := func(typ, id, prop string) (any, bool) {
				n, err := strconv.ParseInt(id, 10, 64)
				if typ != "Vm" || prop != "userData" || err != nil {
					return nil, false
				}
				var v any
				c.Edit(func(st *hcloudtest.State) {
					if s := st.Servers[n]; s != nil {
						v = s.UserData
					}
				})
				return v, v != nil
			}
			return p, holds
		},
		Blocks: map[string]string{
			"net":  "  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }\n",
			"net2": "  net2: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }\n",
			"sub":  "  sub: { type: Subnet, properties: { network: \"${net}\", cidr: 10.0.1.0/24, zone: eu-central } }\n",
			"sub2": "  sub2: { type: Subnet, properties: { network: \"${net}\", cidr: 10.0.2.0/24, zone: eu-central } }\n",
			"sub3": "  sub3: { type: Subnet, properties: { network: \"${net2}\", cidr: 10.0.1.0/24, zone: eu-central } }\n",
			"sg":   "  sg: { type: SecurityGroup, properties: { network: \"${net}\", ingress: [ { port: 22, cidr: 0.0.0.0/0 } ] } }\n",
			"sg2":  "  sg2: { type: SecurityGroup, properties: { network: \"${net}\", ingress: [ { port: 80, cidr: 0.0.0.0/0 } ] } }\n",
			"key":  "  key: { type: SshKey, properties: { publicKey: \"" + providertest.KeyA + "\" } }\n",
			"key2": "  key2: { type: SshKey, properties: { publicKey: \"" + providertest.KeyB + "\" } }\n",
			"vm":   "  vm: { type: Vm, properties: { network: \"${net}\", subnet: \"${sub}\", image: debian-12 } }\n",
			"vm2":  "  vm2: { type: Vm, properties: { network: \"${net}\", subnet: \"${sub}\", image: debian-12 } }\n",
			"tg":   "  tg: { type: TargetGroup, properties: { targets: [ \"${vm}\" ] } }\n",
			"tg2":  "  tg2: { type: TargetGroup, properties: { targets: [ \"${vm2}\" ] } }\n",
		},
		Needs: map[string][]string{
			"net2": {"sub3"}, "sub3": {"net2"},
			"sub": {"net"}, "sub2": {"net"}, "sg": {"net"}, "sg2": {"net"},
			"vm": {"net", "sub"}, "vm2": {"net", "sub"}, "tg": {"vm"}, "tg2": {"vm2"},
		},
		It: map[string][]providertest.KV{
			"Vpc":           {{Name: "cidr", Value: "10.5.0.0/16"}, {Name: "distributeAcrossAzs", Value: "0"}, {Name: "tags", Value: "{ k: one }"}},
			"Subnet":        {{Name: "network", Value: `"${net}"`}, {Name: "cidr", Value: "10.0.9.0/24"}, {Name: "zone", Value: "eu-central"}, {Name: "public", Value: "false"}},
			"SecurityGroup": {{Name: "network", Value: `"${net}"`}, {Name: "ingress", Value: "[ { port: 22, cidr: 198.51.100.0/24 } ]"}, {Name: "egress", Value: "[ { protocol: all, cidr: 0.0.0.0/0 } ]"}, {Name: "tags", Value: "{ k: one }"}},
			"SshKey":        {{Name: "publicKey", Value: `"` + providertest.KeyC + `"`}, {Name: "tags", Value: "{ k: one }"}},
			"Vm": {{Name: "network", Value: `"${net}"`}, {Name: "subnet", Value: `"${sub}"`}, {Name: "securityGroups", Value: `[ "${sg}" ]`}, {Name: "sshKeys", Value: `[ "${key}" ]`},
				{Name: "size", Value: "small"}, {Name: "image", Value: "debian-12"}, {Name: "userData", Value: `"echo one"`}, {Name: "tags", Value: "{ k: one }"}},
			"TargetGroup":  {{Name: "port", Value: "80"}, {Name: "protocol", Value: "http"}, {Name: "targets", Value: `[ "${vm}" ]`}},
			"LoadBalancer": {{Name: "network", Value: `"${net}"`}, {Name: "port", Value: "80"}, {Name: "targetGroup", Value: `"${tg}"`}, {Name: "tags", Value: "{ k: one }"}},
		},
		Cases: map[string][]providertest.Change{
			"Vpc.cidr":                {{To: "10.6.0.0/16"}},
			"Vpc.distributeAcrossAzs": {{To: "1"}},
			"Vpc.tags":                providertest.TagsCase(),
			"Subnet.network":          {{To: `"${net2}"`}},
			"Subnet.cidr":             {{To: "10.0.10.0/24"}},
			"Subnet.zone":             {{To: "us-east"}},
			"Subnet.public":           {{To: "true"}},
			"SecurityGroup.network":   {{To: `"${net2}"`}},
			"SecurityGroup.ingress":   {{To: "[ { port: 2222, cidr: 198.51.100.0/24 } ]"}},
			"SecurityGroup.egress":    {{To: "[ { port: 443, cidr: 0.0.0.0/0 } ]"}},
			"SecurityGroup.tags":      providertest.TagsCase(),
			"SshKey.publicKey":        {{To: `"` + providertest.KeyA + `"`}},
			"SshKey.tags":             providertest.TagsCase(),
			"Vm.network":              {{To: `"${net2}"`, Drop: []string{"subnet"}}},
			"Vm.subnet":               {{To: `"${sub2}"`}},
			"Vm.securityGroups":       {{To: `[ "${sg2}" ]`}},
			"Vm.sshKeys":              {{To: `[ "${key2}" ]`}},
			"Vm.size": {
				{To: "medium"}, // cx23 → cx33: a rescale
				{From: "medium", To: "small", Want: providertest.Replace}, // the disk of cx33 (80 GB) does not fit cx23 (40 GB)
				{To: "cax11", Want: providertest.Replace},                 // x86 → arm
			},
			"Vm.image":                 {{To: "debian-13"}},
			"Vm.userData":              {{To: `"echo two"`}},
			"Vm.tags":                  providertest.TagsCase(),
			"TargetGroup.port":         {{To: "8080"}},
			"TargetGroup.protocol":     {{To: "tcp"}},
			"TargetGroup.targets":      {{To: `[ "${vm2}" ]`}},
			"LoadBalancer.network":     {{To: `"${net2}"`}},
			"LoadBalancer.port":        {{To: "8080"}},
			"LoadBalancer.targetGroup": {{To: `"${tg2}"`}},
			"LoadBalancer.tags":        providertest.TagsCase(),
		},
		Refused: map[string]providertest.Change{
			"Subnet.tags":                 {To: "{ k: one }"},
			"TargetGroup.tags":            {To: "{ k: one }"},
			"LoadBalancer.securityGroups": {To: `[ "${sg}" ]`},
			"LoadBalancer.certificateArn": {To: "arn:aws:acm:eu-west-1:123456789012:certificate/one"},
		},
	}
}
