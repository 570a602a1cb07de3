// Package policies_test holds table tests of the example policies, in the
// style of `opa test`: each case is an input document and the messages
// the policies must give for it. They run the policies the way Kyku does
// (package policy), every example file loaded together.
package policies_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kyku/action/internal/policy"
)

type res = policy.Resource

func sg(ingress ...map[string]any) res {
	rules := make([]any, len(ingress))
	for i, r := range ingress {
		rules[i] = r
	}
	return res{Type: "SecurityGroup", Properties: map[string]any{"network": "vpc-1", "ingress": rules}}
}

func vm(size string) res {
	return res{Type: "Vm", Properties: map[string]any{"image": "debian-12", "size": size}}
}

func change(action, typ, name string) map[string]any {
	return map[string]any{"action": action, "type": typ, "resourceId": name, "level": 0, "properties": []any{}}
}

func TestExamplePolicies(t *testing.T) {
	set, err := policy.LoadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		in        policy.Input
		deny      []string
		warnCount int
	}{
		// ssh.rego
		{name: "ssh from anywhere", in: policy.Input{Environment: "dev", Resources: map[string]res{
			"bastion": sg(map[string]any{"protocol": "tcp", "port": 22, "cidr": "0.0.0.0/0"})}},
			deny: []string{`SecurityGroup "bastion" lets 0.0.0.0/0 reach SSH (port 22): allow a narrower CIDR, or reach the machines through a bastion`}},
		{name: "ssh from anywhere over IPv6", in: policy.Input{Environment: "dev", Resources: map[string]res{
			"bastion": sg(map[string]any{"protocol": "tcp", "port": 22, "cidr": "::/0"})}},
			deny: []string{`SecurityGroup "bastion" lets ::/0 reach SSH (port 22): allow a narrower CIDR, or reach the machines through a bastion`}},
		{name: "every port from anywhere", in: policy.Input{Environment: "dev", Resources: map[string]res{
			"open": sg(map[string]any{"protocol": "all", "cidr": "0.0.0.0/0"})}},
			deny: []string{`SecurityGroup "open" lets 0.0.0.0/0 reach SSH (port 22): allow a narrower CIDR, or reach the machines through a bastion`}},
		{name: "tcp without a port from anywhere", in: policy.Input{Environment: "dev", Resources: map[string]res{
			"open": sg(map[string]any{"protocol": "tcp", "cidr": "0.0.0.0/0"})}},
			deny: []string{`SecurityGroup "open" lets 0.0.0.0/0 reach SSH (port 22): allow a narrower CIDR, or reach the machines through a bastion`}},
		{name: "ssh from the office", in: policy.Input{Environment: "dev", Resources: map[string]res{
			"bastion": sg(map[string]any{"protocol": "tcp", "port": 22, "cidr": "203.0.113.0/24"})}}},
		{name: "https from anywhere", in: policy.Input{Environment: "dev", Resources: map[string]res{
			"web": sg(map[string]any{"protocol": "tcp", "port": 443, "cidr": "0.0.0.0/0"})}}},
		{name: "udp 22 from anywhere", in: policy.Input{Environment: "dev", Resources: map[string]res{
			"odd": sg(map[string]any{"protocol": "udp", "port": 22, "cidr": "0.0.0.0/0"})}}},
		{name: "no ingress", in: policy.Input{Environment: "dev", Resources: map[string]res{
			"quiet": {Type: "SecurityGroup", Properties: map[string]any{"network": "vpc-1"}}}}},

		// database.rego
		{name: "database destroyed in prod", in: policy.Input{Environment: "prod", Changes: []any{change("destroy", "Database", "orders")}},
			deny: []string{`this plan would destroy the Database "orders" in prod, losing its data: restore the configuration, or have a policy owner approve after taking a backup`}},
		{name: "database replaced in prod", in: policy.Input{Environment: "prod", Changes: []any{change("replace", "Database", "orders")}},
			deny: []string{`this plan would replace the Database "orders" in prod, losing its data: restore the configuration, or have a policy owner approve after taking a backup`}},
		{name: "database turned into a vm in prod", in: policy.Input{Environment: "prod", Changes: []any{
			func() map[string]any { c := change("replace", "Vm", "orders"); c["priorType"] = "Database"; return c }()}},
			deny: []string{`this plan would replace the Database "orders" in prod, losing its data: restore the configuration, or have a policy owner approve after taking a backup`}},
		{name: "database updated in prod", in: policy.Input{Environment: "prod", Changes: []any{change("update", "Database", "orders")}}},
		{name: "database destroyed in staging", in: policy.Input{Environment: "staging", Changes: []any{change("destroy", "Database", "orders")}}},
		{name: "vm destroyed in prod", in: policy.Input{Environment: "prod", Changes: []any{change("destroy", "Vm", "web")}}},

		// vm_sizes.rego
		{name: "large vm in prod", in: policy.Input{Environment: "prod", Resources: map[string]res{"web": vm("large")}}},
		{name: "large vm in dev", in: policy.Input{Environment: "dev", Resources: map[string]res{"web": vm("large")}},
			deny: []string{`Vm "web" has size "large", which "dev" does not allow (allowed: small)`}},
		{name: "medium vm in staging", in: policy.Input{Environment: "staging", Resources: map[string]res{"web": vm("medium")}}},
		{name: "small vm in an unlisted environment", in: policy.Input{Environment: "qa", Resources: map[string]res{"web": vm("small")}}, warnCount: 1},
		{name: "medium vm in the default environment", in: policy.Input{Resources: map[string]res{"web": vm("medium")}},
			deny: []string{`Vm "web" has size "medium", which the default environment does not allow (allowed: small)`}, warnCount: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := set.Evaluate(t.Context(), tc.in, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.deny, got.Deny, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("deny (-want +got):\n%s", d)
			}
			if len(got.Warn) != tc.warnCount {
				t.Errorf("warnings %q, want %d", got.Warn, tc.warnCount)
			}
		})
	}
}
