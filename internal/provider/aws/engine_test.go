package aws_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/aws/awstest"
	"github.com/kyku/action/internal/provider/providertest"
	"github.com/kyku/action/internal/statemgr/local"
)

// engineOptions are the provider's options when the engine drives it:
// enough attempts and polls for the fake's slow states, no real waits.
var engineOptions = aws.Options{
	MaxAttempts: 6, Backoff: time.Microsecond, MaxBackoff: time.Millisecond, PollInterval: time.Microsecond, MaxPolls: 50,
}

// TestEngineLifecycleOnFakeAWS drives the quick-start stack through the
// engine on the AWS provider (real SDK clients, fake AWS): apply → no-op
// plan → update (SG rule, instance size) → replace (image) → drift → destroy.
func TestEngineLifecycleOnFakeAWS(t *testing.T) {
	p, srv := fake(t, engineOptions)
	srv.Throttle("RunInstances", 2) // retried, not fatal
	providertest.Lifecycle(t, providertest.Stack{
		Provider: p, Config: providertest.Example(t, "aws"), Created: 14,
		Engine:    engine.Options{RetryBase: time.Millisecond},
		Inventory: srv.Inventory,
		AfterCreate: func(t *testing.T) {
			if n := srv.Calls("CreateVpc"); n != 1 {
				t.Errorf("CreateVpc called %d times", n)
			}
			// What a fresh account needs for the site to answer: the load
			// balancer and the database in their own security groups (not
			// the VPC's default), the database private, the load balancer
			// in two zones, and no auto-subnet in a Local Zone.
			srv.Edit(func(st *awstest.State) {
				groups := map[string]string{}
				for id, g := range st.Groups {
					groups[id] = g.Name
				}
				for _, lb := range st.LBs {
					if len(lb.Groups) != 1 || groups[lb.Groups[0]] != "kyku0001-lb-sg" || len(lb.Subnets) != 2 {
						t.Errorf("load balancer groups %v, subnets %v; want kyku0001-lb-sg and two subnets", lb.Groups, lb.Subnets)
					}
				}
				for _, db := range st.DBs {
					if len(db.Groups) != 1 || groups[db.Groups[0]] != "kyku0001-db-sg" || db.Public {
						t.Errorf("database groups %v, public %v; want kyku0001-db-sg, private", db.Groups, db.Public)
					}
				}
				zones := map[string]bool{}
				for _, sn := range st.Subnets {
					zones[sn.Zone] = true
				}
				if len(zones) != 2 || !zones["eu-west-1a"] || !zones["eu-west-1b"] {
					t.Errorf("auto-subnets in zones %v, want eu-west-1a and eu-west-1b", zones)
				}
			})
		},
		Drift: func(t *testing.T) {
			srv.Edit(func(st *awstest.State) {
				for _, g := range st.Groups {
					if strings.HasSuffix(g.Name, "web-sg") {
						g.Ingress = append(g.Ingress, awstest.Rule{Protocol: "tcp", FromPort: "3306", ToPort: "3306", Cidr: "0.0.0.0/0"})
					}
				}
			})
		},
	})
}

// A name AWS would refuse is a plan error at the resource's line, before
// anything is asked of AWS.
func TestPlanRefusesNamesAWSWouldRefuse(t *testing.T) {
	p, srv := fake(t, aws.Options{})
	e := engine.New(p, local.New(t.TempDir(), "", local.Options{}), engine.Options{DeployPrefix: "1a2b3c4d"})
	text := providertest.Edit(t, providertest.Example(t, "aws"), "  app-db:\n", "  app_db:\n")
	text = providertest.Edit(t, text, "${app-db.endpoint}", "${app_db.endpoint}")
	_, err := e.Plan(t.Context(), providertest.Parse(t, text))
	if err == nil || !strings.Contains(err.Error(), `resource "app_db" (Database): aws refuses its name: RDS instance identifier "db-<deploy prefix>-app_db" may hold only letters, digits and hyphens`) ||
		!strings.Contains(err.Error(), "kyku.yaml:") {
		t.Fatalf("err = %v, want the RDS rule at app_db's line", err)
	}
	if n := srv.Requests(); n != 0 {
		t.Errorf("%d requests; want none", n)
	}
	// The example as it is plans with a prefix starting with a digit.
	if _, err := e.Plan(t.Context(), providertest.Parse(t, providertest.Example(t, "aws"))); err != nil {
		t.Errorf("example: %v", err)
	}
}
