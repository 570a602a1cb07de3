package aws_test

import (
	"encoding/base64"
	"testing"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/aws/awstest"
	"github.com/kyku/action/internal/provider/providertest"
)

// agreement holds AWS's rules to what the test server does.
func agreement() *providertest.Agreement {
	return &providertest.Agreement{
		Types: []string{"Vpc", "Subnet", "SecurityGroup", "SshKey", "Vm", "Database", "TargetGroup", "LoadBalancer"},
		Start: func(t *testing.T) (provider.Provider, providertest.Holds) {
			srv := awstest.New()
			t.Cleanup(srv.Close)
			cfg := sdkaws.Config{Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", "")}
			clients, err := aws.ClientsFromConfig(t.Context(), cfg, srv.URL())
			if err != nil {
				t.Fatal(err)
			}
			p := aws.NewWithClients(clients, aws.Options{
				MaxAttempts: 4, Backoff: time.Microsecond, MaxBackoff: time.Millisecond, PollInterval: time.Microsecond, MaxPolls: 200,
				Now: srv.Now, // the fake's clock: RDS's hours between storage changes
			})
			// The provider does not read an instance's user data back; the
			// fake keeps it (base64, as RunInstances sends it).
			holds := func(typ, id, prop string) (any, bool) {
				if typ != "Vm" || prop != "userData" {
					return nil, false
				}
				var v any
				srv.Edit(func(st *awstest.State) {
					if in := st.Instances[id]; in != nil {
						v = decodeUserData(in.UserData)
					}
				})
				return v, v != nil
			}
			return p, holds
		},
		Blocks: map[string]string{
			// Two zones of public and private subnets: an application load
			// balancer needs two zones, a database private subnets.
			"net":   "  net: { type: Vpc, properties: { cidr: 10.0.0.0/16, distributeAcrossAzs: 2 } }\n",
			"net2":  "  net2: { type: Vpc, properties: { cidr: 10.0.0.0/16, distributeAcrossAzs: 2 } }\n",
			"sg":    "  sg: { type: SecurityGroup, properties: { network: \"${net}\", ingress: [ { port: 80, cidr: 0.0.0.0/0 } ] } }\n",
			"sg2":   "  sg2: { type: SecurityGroup, properties: { network: \"${net}\", ingress: [ { port: 443, cidr: 0.0.0.0/0 } ] } }\n",
			"sg3":   "  sg3: { type: SecurityGroup, properties: { network: \"${net2}\", ingress: [ { port: 80, cidr: 0.0.0.0/0 } ] } }\n",
			"key":   "  key: { type: SshKey, properties: { publicKey: \"" + providertest.KeyA + "\" } }\n",
			"key2":  "  key2: { type: SshKey, properties: { publicKey: \"" + providertest.KeyB + "\" } }\n",
			"vm":    "  vm: { type: Vm, properties: { network: \"${net}\", subnet: \"${net-subnet-public-0}\", image: debian-12 } }\n",
			"vm2":   "  vm2: { type: Vm, properties: { network: \"${net}\", subnet: \"${net-subnet-public-1}\", image: debian-12 } }\n",
			"vm3":   "  vm3: { type: Vm, properties: { network: \"${net2}\", subnet: \"${net2-subnet-public-0}\", image: debian-12 } }\n",
			"tg":    "  tg: { type: TargetGroup, properties: { targets: [ \"${vm}\" ] } }\n",
			"tg2":   "  tg2: { type: TargetGroup, properties: { targets: [ \"${vm2}\" ] } }\n",
			"tg3":   "  tg3: { type: TargetGroup, properties: { targets: [ \"${vm3}\" ] } }\n",
			"tgtcp": "  tgtcp: { type: TargetGroup, properties: { protocol: tcp, targets: [ \"${vm}\" ] } }\n",
		},
		Needs: map[string][]string{
			"sg": {"net"}, "sg2": {"net"}, "sg3": {"net2"},
			"vm": {"net"}, "vm2": {"net"}, "vm3": {"net2"}, "tg": {"vm"}, "tg2": {"vm2"}, "tg3": {"vm3"}, "tgtcp": {"vm"},
		},
		It: map[string][]providertest.KV{
			"Vpc":           {{Name: "cidr", Value: "10.5.0.0/16"}, {Name: "distributeAcrossAzs", Value: "0"}, {Name: "tags", Value: "{ k: one }"}},
			"Subnet":        {{Name: "network", Value: `"${net}"`}, {Name: "cidr", Value: "10.0.9.0/24"}, {Name: "zone", Value: "eu-west-1a"}, {Name: "public", Value: "false"}, {Name: "tags", Value: "{ k: one }"}},
			"SecurityGroup": {{Name: "network", Value: `"${net}"`}, {Name: "ingress", Value: "[ { port: 22, cidr: 10.0.0.0/16 } ]"}, {Name: "egress", Value: "[ { protocol: all, cidr: 0.0.0.0/0 } ]"}, {Name: "tags", Value: "{ k: one }"}},
			"SshKey":        {{Name: "publicKey", Value: `"` + providertest.KeyC + `"`}, {Name: "tags", Value: "{ k: one }"}},
			"Vm": {{Name: "network", Value: `"${net}"`}, {Name: "subnet", Value: `"${net-subnet-public-0}"`}, {Name: "securityGroups", Value: `[ "${sg}" ]`}, {Name: "sshKeys", Value: `[ "${key}" ]`},
				{Name: "size", Value: "small"}, {Name: "image", Value: "debian-12"}, {Name: "userData", Value: `"echo one"`}, {Name: "tags", Value: "{ k: one }"}},
			"Database": {{Name: "network", Value: `"${net}"`}, {Name: "engine", Value: "postgres"}, {Name: "version", Value: `"15"`}, {Name: "size", Value: "small"}, {Name: "storageGb", Value: "20"},
				{Name: "securityGroups", Value: `[ "${sg}" ]`}, {Name: "tags", Value: "{ k: one }"}},
			"TargetGroup": {{Name: "port", Value: "80"}, {Name: "protocol", Value: "http"}, {Name: "targets", Value: `[ "${vm}" ]`}, {Name: "tags", Value: "{ k: one }"}},
			"LoadBalancer": {{Name: "network", Value: `"${net}"`}, {Name: "port", Value: "80"}, {Name: "targetGroup", Value: `"${tg}"`}, {Name: "securityGroups", Value: `[ "${sg}" ]`},
				{Name: "certificateArn", Value: "arn:aws:acm:eu-west-1:123456789012:certificate/one"}, {Name: "tags", Value: "{ k: one }"}},
		},
		Cases: map[string][]providertest.Change{
			"Vpc.cidr":                {{To: "10.6.0.0/16"}},
			"Vpc.distributeAcrossAzs": {{To: "1"}},
			"Vpc.tags":                providertest.TagsCase(),
			"Subnet.network":          {{To: `"${net2}"`}},
			"Subnet.cidr":             {{To: "10.0.10.0/24"}},
			"Subnet.zone":             {{To: "eu-west-1b"}},
			"Subnet.public":           {{To: "true"}},
			"Subnet.tags":             providertest.TagsCase(),
			"SecurityGroup.network":   {{To: `"${net2}"`}},
			"SecurityGroup.ingress":   {{To: "[ { port: 2222, cidr: 10.0.0.0/16 } ]"}},
			"SecurityGroup.egress":    {{To: "[ { port: 443, cidr: 0.0.0.0/0 } ]"}},
			"SecurityGroup.tags":      providertest.TagsCase(),
			"SshKey.publicKey":        {{To: `"` + providertest.KeyA + `"`}},
			"SshKey.tags":             providertest.TagsCase(),
			"Vm.network":              {{To: `"${net2}"`, Drop: []string{"subnet", "securityGroups"}}},
			"Vm.subnet":               {{To: `"${net-subnet-public-1}"`}},
			"Vm.securityGroups":       {{To: `[ "${sg2}" ]`}},
			"Vm.sshKeys":              {{To: `[ "${key2}" ]`}},
			"Vm.size":                 {{To: "medium"}},
			"Vm.image":                {{To: "debian-13"}},
			"Vm.userData":             {{To: `"echo two"`}},
			"Vm.tags":                 providertest.TagsCase(),
			"Database.network":        {{To: `"${net2}"`, Drop: []string{"securityGroups"}}},
			"Database.engine":         {{To: "mysql"}},
			"Database.version": {
				{To: `"16"`},
				{From: `"16"`, To: `"15"`, Want: providertest.Refused}, // RDS never downgrades
			},
			"Database.size": {{To: "medium"}},
			"Database.storageGb": {
				{To: "30"},
				{From: "30", To: "20", Want: providertest.Refused}, // RDS storage only grows
				{To: "21", Want: providertest.Refused},             // by 10% at least
			},
			"Database.securityGroups": {{To: `[ "${sg2}" ]`}},
			"Database.tags":           providertest.TagsCase(),
			"TargetGroup.port":        {{To: "8080"}},
			"TargetGroup.protocol":    {{To: "tcp"}},
			"TargetGroup.targets":     {{To: `[ "${vm2}" ]`}},
			"TargetGroup.tags":        providertest.TagsCase(),
			"LoadBalancer.network":    {{To: `"${net2}"`, Drop: []string{"securityGroups"}, From: `"${net}"`}},
			"LoadBalancer.port":       {{To: "8080"}},
			"LoadBalancer.targetGroup": {
				{To: `"${tg2}"`},
				{To: `"${tgtcp}"`, Want: providertest.Replace, Drop: []string{"securityGroups", "certificateArn"}}, // application → network
			},
			"LoadBalancer.securityGroups": {{To: `[ "${sg2}" ]`}},
			"LoadBalancer.certificateArn": {{To: "arn:aws:acm:eu-west-1:123456789012:certificate/two"}},
			"LoadBalancer.tags":           providertest.TagsCase(),
		},
	}
}

// decodeUserData is the text of base64 user data (as is when it is not
// base64).
func decodeUserData(s string) string {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return s
	}
	return string(b)
}
