package aws_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/aws/awstest"
	"github.com/kyku/action/internal/statemgr/local"
)

// example is examples/aws/kyku.yaml, the stack users check by hand.
func example(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "aws", "kyku.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func parseText(t *testing.T, text string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(text)}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// edit replaces old (which must occur) with new in text.
func edit(t *testing.T, text, old, new string) string {
	t.Helper()
	if !strings.Contains(text, old) {
		t.Fatalf("example has no %q", old)
	}
	return strings.Replace(text, old, new, 1)
}

func actionsOf(p *plan.Plan) []string {
	var out []string
	for _, c := range p.Changes {
		if c.Action != plan.NoOp {
			out = append(out, c.Action.String()+" "+c.ResourceID)
		}
	}
	return out
}

// TestEngineLifecycleOnFakeAWS drives the quick-start stack through the
// engine on the AWS provider (real SDK clients, fake AWS): apply → no-op
// plan → update (SG rule, instance size) → replace (image) → drift → destroy.
func TestEngineLifecycleOnFakeAWS(t *testing.T) {
	srv := awstest.New()
	t.Cleanup(srv.Close)
	cfg := sdkaws.Config{Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", "")}
	p := aws.NewWithClients(aws.ClientsFromConfig(cfg, srv.URL()), aws.Options{
		MaxAttempts: 6, Backoff: time.Microsecond, MaxBackoff: time.Millisecond, PollInterval: time.Microsecond, MaxPolls: 50,
	})
	e := engine.New(p, local.New(t.TempDir(), "", local.Options{}), engine.Options{DeployPrefix: "kyku0001", RetryBase: time.Millisecond})
	ctx := context.Background()
	apply := func(c *config.Config) *engine.Result {
		t.Helper()
		res, err := e.Apply(ctx, c, engine.ApplyOptions{AutoApprove: true}, nil)
		if err != nil {
			t.Fatalf("apply: %v", err)
		}
		if err := res.Err(); err != nil {
			t.Fatalf("apply: %v", err)
		}
		return res
	}
	planOf := func(c *config.Config) []string {
		t.Helper()
		pl, err := e.Plan(ctx, c)
		if err != nil {
			t.Fatalf("plan: %v", err)
		}
		return actionsOf(pl)
	}
	want := func(got []string, want ...string) {
		t.Helper()
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("plan = %v, want %v", got, want)
		}
	}

	srv.Throttle("RunInstances", 2) // retried, not fatal
	text := example(t)
	res := apply(parseText(t, text))
	if len(res.Succeeded) != 14 {
		t.Fatalf("created %d, want 14", len(res.Succeeded))
	}
	if n := srv.Calls("CreateVpc"); n != 1 {
		t.Errorf("CreateVpc called %d times", n)
	}
	// What a fresh account needs for the site to answer: the load balancer
	// and the database in their own security groups (not the VPC's
	// default), the database private, the load balancer in two zones, and
	// no auto-subnet in a Local Zone.
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
	want(planOf(parseText(t, text)))

	// Update in place: an SG rule and an instance size.
	text = edit(t, text, "port: 22, cidr: 10.0.0.0/16", "port: 2222, cidr: 10.0.0.0/16")
	text = edit(t, text, "image: debian-12\n      size: small", "image: debian-12\n      size: medium")
	want(planOf(parseText(t, text)), "update web-sg", "update web-0")
	apply(parseText(t, text))
	want(planOf(parseText(t, text)))

	// Replace: a new image; the target group follows the new instance ID.
	text = edit(t, text, "image: debian-12\n      size: medium", "image: debian-13\n      size: medium")
	want(planOf(parseText(t, text)), "replace web-0", "update web-tg")
	apply(parseText(t, text))
	want(planOf(parseText(t, text)))

	// Drift: a rule added behind Kyku's back shows as an update, and apply
	// removes it.
	srv.Edit(func(st *awstest.State) {
		for _, g := range st.Groups {
			if strings.HasSuffix(g.Name, "web-sg") {
				g.Ingress = append(g.Ingress, awstest.Rule{Protocol: "tcp", FromPort: "3306", ToPort: "3306", Cidr: "0.0.0.0/0"})
			}
		}
	})
	want(planOf(parseText(t, text)), "update web-sg")
	apply(parseText(t, text))
	want(planOf(parseText(t, text)))

	if res, err := e.Destroy(ctx, engine.ApplyOptions{AutoApprove: true}); err != nil || res.Err() != nil {
		t.Fatalf("destroy: %v, %v", err, res.Err())
	}
	if inv := srv.Inventory(); len(inv) != 0 {
		t.Errorf("fake AWS still holds %v after destroy", inv)
	}
}

// A name AWS would refuse is a plan error at the resource's line, and
// nothing but the zones is asked of AWS.
func TestPlanRefusesNamesAWSWouldRefuse(t *testing.T) {
	srv := awstest.New()
	t.Cleanup(srv.Close)
	cfg := sdkaws.Config{Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", "")}
	p := aws.NewWithClients(aws.ClientsFromConfig(cfg, srv.URL()), aws.Options{})
	e := engine.New(p, local.New(t.TempDir(), "", local.Options{}), engine.Options{DeployPrefix: "1a2b3c4d"})
	text := edit(t, example(t), "  app-db:\n", "  app_db:\n")
	text = edit(t, text, "${app-db.endpoint}", "${app_db.endpoint}")
	_, err := e.Plan(context.Background(), parseText(t, text))
	if err == nil || !strings.Contains(err.Error(), `resource "app_db": aws refuses its name "1a2b3c4d-app_db": RDS instance identifier "db-1a2b3c4d-app_db" may hold only letters, digits and hyphens`) ||
		!strings.Contains(err.Error(), "kyku.yaml:") {
		t.Fatalf("err = %v, want the RDS rule at app_db's line", err)
	}
	if n, z := srv.Requests(), srv.Calls("DescribeAvailabilityZones"); n != z {
		t.Errorf("%d requests, %d of them for zones; want only the zones", n, z)
	}
	// The example as it is plans with a prefix starting with a digit.
	if _, err := e.Plan(context.Background(), parseText(t, example(t))); err != nil {
		t.Errorf("example: %v", err)
	}
}
