package agreement_test

import (
	"testing"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
)

// keyA, keyB and keyC are well-formed public keys (nobody holds their
// private halves).
const (
	keyA = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO8Wb8aHc8L936PFYkcSxDJxW2T11kEykGuD94m2FJ5j a@kyku"
	keyB = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMPpQ50tnXzmLZQoHDQXbgGqKliupyDcgqzZpLUd/wBU b@kyku"
	keyC = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGs7ZkutGcOf5VNyqKs2BKZBlxdfs0fpPWamw+V9iIsb c@kyku"
)

// common are the cases every provider shares: a tag changes in place
// everywhere.
func tagsCase() []change { return []change{{to: "{ k: two }"}} }

func simCloud() *cloud {
	return &cloud{
		name:  "sim",
		types: []string{"Vpc", "Subnet", "SecurityGroup", "SshKey", "Vm", "Database", "TargetGroup", "LoadBalancer"},
		start: func(t *testing.T) (provider.Provider, func(string, string, string) (any, bool)) {
			p, err := sim.New(sim.Options{Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			return p, nil
		},
		blocks: map[string]string{
			"net":  "  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }\n",
			"net2": "  net2: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }\n",
			"sub":  "  sub: { type: Subnet, properties: { network: \"${net}\", cidr: 10.0.1.0/24, zone: sim-a } }\n",
			"sub2": "  sub2: { type: Subnet, properties: { network: \"${net}\", cidr: 10.0.2.0/24, zone: sim-b } }\n",
			"sg":   "  sg: { type: SecurityGroup, properties: { network: \"${net}\" } }\n",
			"sg2":  "  sg2: { type: SecurityGroup, properties: { network: \"${net}\" } }\n",
			"key":  "  key: { type: SshKey, properties: { publicKey: \"" + keyA + "\" } }\n",
			"key2": "  key2: { type: SshKey, properties: { publicKey: \"" + keyB + "\" } }\n",
			"vm":   "  vm: { type: Vm, properties: { network: \"${net}\", subnet: \"${sub}\", image: debian-12 } }\n",
			"vm2":  "  vm2: { type: Vm, properties: { network: \"${net}\", subnet: \"${sub}\", image: debian-12 } }\n",
			"tg":   "  tg: { type: TargetGroup, properties: { targets: [ \"${vm}\" ] } }\n",
			"tg2":  "  tg2: { type: TargetGroup, properties: { targets: [ \"${vm2}\" ] } }\n",
		},
		needs: map[string][]string{
			"sub": {"net"}, "sub2": {"net"}, "sg": {"net"}, "sg2": {"net"},
			"vm": {"net", "sub"}, "vm2": {"net", "sub"}, "tg": {"vm"}, "tg2": {"vm2"},
		},
		it: map[string][]kv{
			"Vpc":           {{"cidr", "10.5.0.0/16"}, {"distributeAcrossAzs", "0"}, {"tags", "{ k: one }"}},
			"Subnet":        {{"network", `"${net}"`}, {"cidr", "10.0.9.0/24"}, {"zone", "sim-a"}, {"public", "false"}, {"tags", "{ k: one }"}},
			"SecurityGroup": {{"network", `"${net}"`}, {"ingress", "[ { port: 22, cidr: 10.0.0.0/16 } ]"}, {"egress", "[ { protocol: all, cidr: 0.0.0.0/0 } ]"}, {"tags", "{ k: one }"}},
			"SshKey":        {{"publicKey", `"` + keyC + `"`}, {"tags", "{ k: one }"}},
			"Vm": {{"network", `"${net}"`}, {"subnet", `"${sub}"`}, {"securityGroups", `[ "${sg}" ]`}, {"sshKeys", `[ "${key}" ]`},
				{"size", "small"}, {"image", "debian-12"}, {"userData", `"echo one"`}, {"tags", "{ k: one }"}},
			"Database": {{"network", `"${net}"`}, {"engine", "postgres"}, {"version", `"15"`}, {"size", "small"}, {"storageGb", "20"},
				{"securityGroups", `[ "${sg}" ]`}, {"tags", "{ k: one }"}},
			"TargetGroup": {{"port", "80"}, {"protocol", "http"}, {"targets", `[ "${vm}" ]`}, {"tags", "{ k: one }"}},
			"LoadBalancer": {{"network", `"${net}"`}, {"port", "80"}, {"targetGroup", `"${tg}"`}, {"securityGroups", `[ "${sg}" ]`},
				{"certificateArn", "arn:aws:acm:eu-west-1:123456789012:certificate/one"}, {"tags", "{ k: one }"}},
		},
		cases: map[string][]change{
			"Vpc.cidr":                    {{to: "10.6.0.0/16"}},
			"Vpc.distributeAcrossAzs":     {{to: "1"}},
			"Vpc.tags":                    tagsCase(),
			"Subnet.network":              {{to: `"${net2}"`}},
			"Subnet.cidr":                 {{to: "10.0.10.0/24"}},
			"Subnet.zone":                 {{to: "sim-b"}},
			"Subnet.public":               {{to: "true"}},
			"Subnet.tags":                 tagsCase(),
			"SecurityGroup.network":       {{to: `"${net2}"`}},
			"SecurityGroup.ingress":       {{to: "[ { port: 2222, cidr: 10.0.0.0/16 } ]"}},
			"SecurityGroup.egress":        {{to: "[ { port: 443, cidr: 0.0.0.0/0 } ]"}},
			"SecurityGroup.tags":          tagsCase(),
			"SshKey.publicKey":            {{to: `"` + keyA + `"`}},
			"SshKey.tags":                 tagsCase(),
			"Vm.network":                  {{to: `"${net2}"`, drop: []string{"subnet"}}},
			"Vm.subnet":                   {{to: `"${sub2}"`}},
			"Vm.securityGroups":           {{to: `[ "${sg2}" ]`}},
			"Vm.sshKeys":                  {{to: `[ "${key2}" ]`}},
			"Vm.size":                     {{to: "medium"}},
			"Vm.image":                    {{to: "debian-13"}},
			"Vm.userData":                 {{to: `"echo two"`}},
			"Vm.tags":                     tagsCase(),
			"Database.network":            {{to: `"${net2}"`}},
			"Database.engine":             {{to: "mysql"}},
			"Database.version":            {{to: `"16"`}},
			"Database.size":               {{to: "medium"}},
			"Database.storageGb":          {{to: "30"}},
			"Database.securityGroups":     {{to: `[ "${sg2}" ]`}},
			"Database.tags":               tagsCase(),
			"TargetGroup.port":            {{to: "8080"}},
			"TargetGroup.protocol":        {{to: "tcp"}},
			"TargetGroup.targets":         {{to: `[ "${vm2}" ]`}},
			"TargetGroup.tags":            tagsCase(),
			"LoadBalancer.network":        {{to: `"${net2}"`}},
			"LoadBalancer.port":           {{to: "8080"}},
			"LoadBalancer.targetGroup":    {{to: `"${tg2}"`}},
			"LoadBalancer.securityGroups": {{to: `[ "${sg2}" ]`}},
			"LoadBalancer.certificateArn": {{to: "arn:aws:acm:eu-west-1:123456789012:certificate/two"}},
			"LoadBalancer.tags":           tagsCase(),
		},
	}
}
