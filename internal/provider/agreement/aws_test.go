package agreement_test

import (
	"encoding/base64"
	"testing"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/aws/awstest"
)

func awsCloud() *cloud {
	return &cloud{
		name:  "aws",
		types: []string{"Vpc", "Subnet", "SecurityGroup", "SshKey", "Vm", "Database", "TargetGroup", "LoadBalancer"},
		start: func(t *testing.T) (provider.Provider, func(string, string, string) (any, bool)) {
			srv := awstest.New()
			t.Cleanup(srv.Close)
			cfg := sdkaws.Config{Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", "")}
			p := aws.NewWithClients(aws.ClientsFromConfig(cfg, srv.URL()), aws.Options{
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
		blocks: map[string]string{
			// Two zones of public and private subnets: an application load
			// balancer needs two zones, a database private subnets.
			"net":   "  net: { type: Vpc, properties: { cidr: 10.0.0.0/16, distributeAcrossAzs: 2 } }\n",
			"net2":  "  net2: { type: Vpc, properties: { cidr: 10.0.0.0/16, distributeAcrossAzs: 2 } }\n",
			"sg":    "  sg: { type: SecurityGroup, properties: { network: \"${net}\", ingress: [ { port: 80, cidr: 0.0.0.0/0 } ] } }\n",
			"sg2":   "  sg2: { type: SecurityGroup, properties: { network: \"${net}\", ingress: [ { port: 443, cidr: 0.0.0.0/0 } ] } }\n",
			"sg3":   "  sg3: { type: SecurityGroup, properties: { network: \"${net2}\", ingress: [ { port: 80, cidr: 0.0.0.0/0 } ] } }\n",
			"key":   "  key: { type: SshKey, properties: { publicKey: \"" + keyA + "\" } }\n",
			"key2":  "  key2: { type: SshKey, properties: { publicKey: \"" + keyB + "\" } }\n",
			"vm":    "  vm: { type: Vm, properties: { network: \"${net}\", subnet: \"${net-subnet-public-0}\", image: debian-12 } }\n",
			"vm2":   "  vm2: { type: Vm, properties: { network: \"${net}\", subnet: \"${net-subnet-public-1}\", image: debian-12 } }\n",
			"vm3":   "  vm3: { type: Vm, properties: { network: \"${net2}\", subnet: \"${net2-subnet-public-0}\", image: debian-12 } }\n",
			"tg":    "  tg: { type: TargetGroup, properties: { targets: [ \"${vm}\" ] } }\n",
			"tg2":   "  tg2: { type: TargetGroup, properties: { targets: [ \"${vm2}\" ] } }\n",
			"tg3":   "  tg3: { type: TargetGroup, properties: { targets: [ \"${vm3}\" ] } }\n",
			"tgtcp": "  tgtcp: { type: TargetGroup, properties: { protocol: tcp, targets: [ \"${vm}\" ] } }\n",
		},
		needs: map[string][]string{
			"sg": {"net"}, "sg2": {"net"}, "sg3": {"net2"},
			"vm": {"net"}, "vm2": {"net"}, "vm3": {"net2"}, "tg": {"vm"}, "tg2": {"vm2"}, "tg3": {"vm3"}, "tgtcp": {"vm"},
		},
		it: map[string][]kv{
			"Vpc":           {{"cidr", "10.5.0.0/16"}, {"distributeAcrossAzs", "0"}, {"tags", "{ k: one }"}},
			"Subnet":        {{"network", `"${net}"`}, {"cidr", "10.0.9.0/24"}, {"zone", "eu-west-1a"}, {"public", "false"}, {"tags", "{ k: one }"}},
			"SecurityGroup": {{"network", `"${net}"`}, {"ingress", "[ { port: 22, cidr: 10.0.0.0/16 } ]"}, {"egress", "[ { protocol: all, cidr: 0.0.0.0/0 } ]"}, {"tags", "{ k: one }"}},
			"SshKey":        {{"publicKey", `"` + keyC + `"`}, {"tags", "{ k: one }"}},
			"Vm": {{"network", `"${net}"`}, {"subnet", `"${net-subnet-public-0}"`}, {"securityGroups", `[ "${sg}" ]`}, {"sshKeys", `[ "${key}" ]`},
				{"size", "small"}, {"image", "debian-12"}, {"userData", `"echo one"`}, {"tags", "{ k: one }"}},
			"Database": {{"network", `"${net}"`}, {"engine", "postgres"}, {"version", `"15"`}, {"size", "small"}, {"storageGb", "20"},
				{"securityGroups", `[ "${sg}" ]`}, {"tags", "{ k: one }"}},
			"TargetGroup": {{"port", "80"}, {"protocol", "http"}, {"targets", `[ "${vm}" ]`}, {"tags", "{ k: one }"}},
			"LoadBalancer": {{"network", `"${net}"`}, {"port", "80"}, {"targetGroup", `"${tg}"`}, {"securityGroups", `[ "${sg}" ]`},
				{"certificateArn", "arn:aws:acm:eu-west-1:123456789012:certificate/one"}, {"tags", "{ k: one }"}},
		},
		cases: map[string][]change{
			"Vpc.cidr":                {{to: "10.6.0.0/16"}},
			"Vpc.distributeAcrossAzs": {{to: "1"}},
			"Vpc.tags":                tagsCase(),
			"Subnet.network":          {{to: `"${net2}"`}},
			"Subnet.cidr":             {{to: "10.0.10.0/24"}},
			"Subnet.zone":             {{to: "eu-west-1b"}},
			"Subnet.public":           {{to: "true"}},
			"Subnet.tags":             tagsCase(),
			"SecurityGroup.network":   {{to: `"${net2}"`}},
			"SecurityGroup.ingress":   {{to: "[ { port: 2222, cidr: 10.0.0.0/16 } ]"}},
			"SecurityGroup.egress":    {{to: "[ { port: 443, cidr: 0.0.0.0/0 } ]"}},
			"SecurityGroup.tags":      tagsCase(),
			"SshKey.publicKey":        {{to: `"` + keyA + `"`}},
			"SshKey.tags":             tagsCase(),
			"Vm.network":              {{to: `"${net2}"`, drop: []string{"subnet", "securityGroups"}}},
			"Vm.subnet":               {{to: `"${net-subnet-public-1}"`}},
			"Vm.securityGroups":       {{to: `[ "${sg2}" ]`}},
			"Vm.sshKeys":              {{to: `[ "${key2}" ]`}},
			"Vm.size":                 {{to: "medium"}},
			"Vm.image":                {{to: "debian-13"}},
			"Vm.userData":             {{to: `"echo two"`}},
			"Vm.tags":                 tagsCase(),
			"Database.network":        {{to: `"${net2}"`, drop: []string{"securityGroups"}}},
			"Database.engine":         {{to: "mysql"}},
			"Database.version": {
				{to: `"16"`},
				{from: `"16"`, to: `"15"`, want: refused}, // RDS never downgrades
			},
			"Database.size": {{to: "medium"}},
			"Database.storageGb": {
				{to: "30"},
				{from: "30", to: "20", want: refused}, // RDS storage only grows
				{to: "21", want: refused},             // by 10% at least
			},
			"Database.securityGroups": {{to: `[ "${sg2}" ]`}},
			"Database.tags":           tagsCase(),
			"TargetGroup.port":        {{to: "8080"}},
			"TargetGroup.protocol":    {{to: "tcp"}},
			"TargetGroup.targets":     {{to: `[ "${vm2}" ]`}},
			"TargetGroup.tags":        tagsCase(),
			"LoadBalancer.network":    {{to: `"${net2}"`, drop: []string{"securityGroups"}, from: `"${net}"`}},
			"LoadBalancer.port":       {{to: "8080"}},
			"LoadBalancer.targetGroup": {
				{to: `"${tg2}"`},
				{to: `"${tgtcp}"`, want: replace, drop: []string{"securityGroups", "certificateArn"}}, // application → network
			},
			"LoadBalancer.securityGroups": {{to: `[ "${sg2}" ]`}},
			"LoadBalancer.certificateArn": {{to: "arn:aws:acm:eu-west-1:123456789012:certificate/two"}},
			"LoadBalancer.tags":           tagsCase(),
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
