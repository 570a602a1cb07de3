package sim

import (
	"testing"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/providertest"
)

// agreement holds the simulator's rules to what it does.
func agreement() *providertest.Agreement {
	return &providertest.Agreement{
		Types: []string{"Vpc", "Subnet", "SecurityGroup", "SshKey", "Vm", "Database", "TargetGroup", "LoadBalancer"},
		Start: func(t *testing.T) (provider.Provider, providertest.Holds) {
			p, err := New(Options{Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			return p, nil
		},
		Blocks: map[string]string{
			"net":  "  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }\n",
			"net2": "  net2: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }\n",
			"sub":  "  sub: { type: Subnet, properties: { network: \"${net}\", cidr: 10.0.1.0/24, zone: sim-a } }\n",
			"sub2": "  sub2: { type: Subnet, properties: { network: \"${net}\", cidr: 10.0.2.0/24, zone: sim-b } }\n",
			"sg":   "  sg: { type: SecurityGroup, properties: { network: \"${net}\" } }\n",
			"sg2":  "  sg2: { type: SecurityGroup, properties: { network: \"${net}\" } }\n",
			"key":  "  key: { type: SshKey, properties: { publicKey: \"" + providertest.KeyA + "\" } }\n",
			"key2": "  key2: { type: SshKey, properties: { publicKey: \"" + providertest.KeyB + "\" } }\n",
			"vm":   "  vm: { type: Vm, properties: { network: \"${net}\", subnet: \"${sub}\", image: debian-12 } }\n",
			"vm2":  "  vm2: { type: Vm, properties: { network: \"${net}\", subnet: \"${sub}\", image: debian-12 } }\n",
			"tg":   "  tg: { type: TargetGroup, properties: { targets: [ \"${vm}\" ] } }\n",
			"tg2":  "  tg2: { type: TargetGroup, properties: { targets: [ \"${vm2}\" ] } }\n",
		},
		Needs: map[string][]string{
			"sub": {"net"}, "sub2": {"net"}, "sg": {"net"}, "sg2": {"net"},
			"vm": {"net", "sub"}, "vm2": {"net", "sub"}, "tg": {"vm"}, "tg2": {"vm2"},
		},
		It: map[string][]providertest.KV{
			"Vpc":           {{Name: "cidr", Value: "10.5.0.0/16"}, {Name: "distributeAcrossAzs", Value: "0"}, {Name: "tags", Value: "{ k: one }"}},
			"Subnet":        {{Name: "network", Value: `"${net}"`}, {Name: "cidr", Value: "10.0.9.0/24"}, {Name: "zone", Value: "sim-a"}, {Name: "public", Value: "false"}, {Name: "tags", Value: "{ k: one }"}},
			"SecurityGroup": {{Name: "network", Value: `"${net}"`}, {Name: "ingress", Value: "[ { port: 22, cidr: 10.0.0.0/16 } ]"}, {Name: "egress", Value: "[ { protocol: all, cidr: 0.0.0.0/0 } ]"}, {Name: "tags", Value: "{ k: one }"}},
			"SshKey":        {{Name: "publicKey", Value: `"` + providertest.KeyC + `"`}, {Name: "tags", Value: "{ k: one }"}},
			"Vm": {{Name: "network", Value: `"${net}"`}, {Name: "subnet", Value: `"${sub}"`}, {Name: "securityGroups", Value: `[ "${sg}" ]`}, {Name: "sshKeys", Value: `[ "${key}" ]`},
				{Name: "size", Value: "small"}, {Name: "image", Value: "debian-12"}, {Name: "userData", Value: `"echo one"`}, {Name: "tags", Value: "{ k: one }"}},
			"Database": {{Name: "network", Value: `"${net}"`}, {Name: "engine", Value: "postgres"}, {Name: "version", Value: `"15"`}, {Name: "size", Value: "small"}, {Name: "storageGb", Value: "20"},
				{Name: "securityGroups", Value: `[ "${sg}" ]`}, {Name: "tags", Value: "{ k: one }"}},
			"TargetGroup": {{Name: "port", Value: "80"}, {Name: "protocol", Value: "http"}, {Name: "targets", Value: `[ "${vm}" ]`}, {Name: "tags", Value: "{ k: one }"}},
			"LoadBalancer": {{Name: "network", Value: `"${net}"`}, {Name: "port", Value: "80"}, {Name: "targetGroup", Value: `"${tg}"`}, {Name: "securityGroups", Value: `[ "${sg}" ]`},
				{Name: "certificateArn", Value: "arn:aws:acm:eu-west-1:123456789012:certificate/one"}, {Name: "tags", Value: "{ k: one }"}},
		},
		Cases: map[string][]providertest.Change{
			"Vpc.cidr":                    {{To: "10.6.0.0/16"}},
			"Vpc.distributeAcrossAzs":     {{To: "1"}},
			"Vpc.tags":                    providertest.TagsCase(),
			"Subnet.network":              {{To: `"${net2}"`}},
			"Subnet.cidr":                 {{To: "10.0.10.0/24"}},
			"Subnet.zone":                 {{To: "sim-b"}},
			"Subnet.public":               {{To: "true"}},
			"Subnet.tags":                 providertest.TagsCase(),
			"SecurityGroup.network":       {{To: `"${net2}"`}},
			"SecurityGroup.ingress":       {{To: "[ { port: 2222, cidr: 10.0.0.0/16 } ]"}},
			"SecurityGroup.egress":        {{To: "[ { port: 443, cidr: 0.0.0.0/0 } ]"}},
			"SecurityGroup.tags":          providertest.TagsCase(),
			"SshKey.publicKey":            {{To: `"` + providertest.KeyA + `"`}},
			"SshKey.tags":                 providertest.TagsCase(),
			"Vm.network":                  {{To: `"${net2}"`, Drop: []string{"subnet"}}},
			"Vm.subnet":                   {{To: `"${sub2}"`}},
			"Vm.securityGroups":           {{To: `[ "${sg2}" ]`}},
			"Vm.sshKeys":                  {{To: `[ "${key2}" ]`}},
			"Vm.size":                     {{To: "medium"}},
			"Vm.image":                    {{To: "debian-13"}},
			"Vm.userData":                 {{To: `"echo two"`}},
			"Vm.tags":                     providertest.TagsCase(),
			"Database.network":            {{To: `"${net2}"`}},
			"Database.engine":             {{To: "mysql"}},
			"Database.version":            {{To: `"16"`}},
			"Database.size":               {{To: "medium"}},
			"Database.storageGb":          {{To: "30"}},
			"Database.securityGroups":     {{To: `[ "${sg2}" ]`}},
			"Database.tags":               providertest.TagsCase(),
			"TargetGroup.port":            {{To: "8080"}},
			"TargetGroup.protocol":        {{To: "tcp"}},
			"TargetGroup.targets":         {{To: `[ "${vm2}" ]`}},
			"TargetGroup.tags":            providertest.TagsCase(),
			"LoadBalancer.network":        {{To: `"${net2}"`}},
			"LoadBalancer.port":           {{To: "8080"}},
			"LoadBalancer.targetGroup":    {{To: `"${tg2}"`}},
			"LoadBalancer.securityGroups": {{To: `[ "${sg2}" ]`}},
			"LoadBalancer.certificateArn": {{To: "arn:aws:acm:eu-west-1:123456789012:certificate/two"}},
			"LoadBalancer.tags":           providertest.TagsCase(),
		},
	}
}
