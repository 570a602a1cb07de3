package agreement_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/hetzner"
	"github.com/kyku/action/internal/provider/hetzner/hcloudtest"
)

// clock is a fake clock the provider's waits advance, shared with the
// fake cloud, so that polls and boots take no real time.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(max(d, 0))
	return nil
}

func hetznerCloud() *cloud {
	return &cloud{
		name:  "hetzner",
		types: []string{"Vpc", "Subnet", "SecurityGroup", "SshKey", "Vm", "TargetGroup", "LoadBalancer"},
		start: func(t *testing.T) (provider.Provider, func(string, string, string) (any, bool)) {
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
		blocks: map[string]string{
			"net":  "  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }\n",
			"net2": "  net2: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }\n",
			"sub":  "  sub: { type: Subnet, properties: { network: \"${net}\", cidr: 10.0.1.0/24, zone: eu-central } }\n",
			"sub2": "  sub2: { type: Subnet, properties: { network: \"${net}\", cidr: 10.0.2.0/24, zone: eu-central } }\n",
			"sub3": "  sub3: { type: Subnet, properties: { network: \"${net2}\", cidr: 10.0.1.0/24, zone: eu-central } }\n",
			"sg":   "  sg: { type: SecurityGroup, properties: { network: \"${net}\", ingress: [ { port: 22, cidr: 0.0.0.0/0 } ] } }\n",
			"sg2":  "  sg2: { type: SecurityGroup, properties: { network: \"${net}\", ingress: [ { port: 80, cidr: 0.0.0.0/0 } ] } }\n",
			"key":  "  key: { type: SshKey, properties: { publicKey: \"" + keyA + "\" } }\n",
			"key2": "  key2: { type: SshKey, properties: { publicKey: \"" + keyB + "\" } }\n",
			"vm":   "  vm: { type: Vm, properties: { network: \"${net}\", subnet: \"${sub}\", image: debian-12 } }\n",
			"vm2":  "  vm2: { type: Vm, properties: { network: \"${net}\", subnet: \"${sub}\", image: debian-12 } }\n",
			"tg":   "  tg: { type: TargetGroup, properties: { targets: [ \"${vm}\" ] } }\n",
			"tg2":  "  tg2: { type: TargetGroup, properties: { targets: [ \"${vm2}\" ] } }\n",
		},
		needs: map[string][]string{
			"net2": {"sub3"}, "sub3": {"net2"},
			"sub": {"net"}, "sub2": {"net"}, "sg": {"net"}, "sg2": {"net"},
			"vm": {"net", "sub"}, "vm2": {"net", "sub"}, "tg": {"vm"}, "tg2": {"vm2"},
		},
		it: map[string][]kv{
			"Vpc":           {{"cidr", "10.5.0.0/16"}, {"distributeAcrossAzs", "0"}, {"tags", "{ k: one }"}},
			"Subnet":        {{"network", `"${net}"`}, {"cidr", "10.0.9.0/24"}, {"zone", "eu-central"}, {"public", "false"}},
			"SecurityGroup": {{"network", `"${net}"`}, {"ingress", "[ { port: 22, cidr: 198.51.100.0/24 } ]"}, {"egress", "[ { protocol: all, cidr: 0.0.0.0/0 } ]"}, {"tags", "{ k: one }"}},
			"SshKey":        {{"publicKey", `"` + keyC + `"`}, {"tags", "{ k: one }"}},
			"Vm": {{"network", `"${net}"`}, {"subnet", `"${sub}"`}, {"securityGroups", `[ "${sg}" ]`}, {"sshKeys", `[ "${key}" ]`},
				{"size", "small"}, {"image", "debian-12"}, {"userData", `"echo one"`}, {"tags", "{ k: one }"}},
			"TargetGroup":  {{"port", "80"}, {"protocol", "http"}, {"targets", `[ "${vm}" ]`}},
			"LoadBalancer": {{"network", `"${net}"`}, {"port", "80"}, {"targetGroup", `"${tg}"`}, {"tags", "{ k: one }"}},
		},
		cases: map[string][]change{
			"Vpc.cidr":                {{to: "10.6.0.0/16"}},
			"Vpc.distributeAcrossAzs": {{to: "1"}},
			"Vpc.tags":                tagsCase(),
			"Subnet.network":          {{to: `"${net2}"`}},
			"Subnet.cidr":             {{to: "10.0.10.0/24"}},
			"Subnet.zone":             {{to: "us-east"}},
			"Subnet.public":           {{to: "true"}},
			"SecurityGroup.network":   {{to: `"${net2}"`}},
			"SecurityGroup.ingress":   {{to: "[ { port: 2222, cidr: 198.51.100.0/24 } ]"}},
			"SecurityGroup.egress":    {{to: "[ { port: 443, cidr: 0.0.0.0/0 } ]"}},
			"SecurityGroup.tags":      tagsCase(),
			"SshKey.publicKey":        {{to: `"` + keyA + `"`}},
			"SshKey.tags":             tagsCase(),
			"Vm.network":              {{to: `"${net2}"`, drop: []string{"subnet"}}},
			"Vm.subnet":               {{to: `"${sub2}"`}},
			"Vm.securityGroups":       {{to: `[ "${sg2}" ]`}},
			"Vm.sshKeys":              {{to: `[ "${key2}" ]`}},
			"Vm.size": {
				{to: "medium"}, // cx23 → cx33: a rescale
				{from: "medium", to: "small", want: replace}, // the disk of cx33 (80 GB) does not fit cx23 (40 GB)
				{to: "cax11", want: replace},                 // x86 → arm
			},
			"Vm.image":                 {{to: "debian-13"}},
			"Vm.userData":              {{to: `"echo two"`}},
			"Vm.tags":                  tagsCase(),
			"TargetGroup.port":         {{to: "8080"}},
			"TargetGroup.protocol":     {{to: "tcp"}},
			"TargetGroup.targets":      {{to: `[ "${vm2}" ]`}},
			"LoadBalancer.network":     {{to: `"${net2}"`}},
			"LoadBalancer.port":        {{to: "8080"}},
			"LoadBalancer.targetGroup": {{to: `"${tg2}"`}},
			"LoadBalancer.tags":        tagsCase(),
		},
		refused: map[string]change{
			"Subnet.tags":                 {to: "{ k: one }"},
			"TargetGroup.tags":            {to: "{ k: one }"},
			"LoadBalancer.securityGroups": {to: `[ "${sg}" ]`},
			"LoadBalancer.certificateArn": {to: "arn:aws:acm:eu-west-1:123456789012:certificate/one"},
		},
	}
}
