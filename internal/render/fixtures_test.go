package render

import (
	"fmt"
	"testing"
	"time"

	"github.com/kyku/action/internal/config"
	goldenfile "github.com/kyku/action/internal/golden"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, name, got)
}

const secret = "s3cr3t-value"

// change builds a Change; props are given as path/old/new triples.
func change(a plan.Action, typ, name string, level int, props ...plan.PropChange) plan.Change {
	return plan.Change{Action: a, Type: typ, ResourceID: name, Level: level, Properties: props}
}

func prop(path string, old, new any) plan.PropChange {
	return plan.PropChange{Path: path, Old: value.Normalize(old), New: value.Normalize(new)}
}

func newPlan(env string, changes ...plan.Change) *plan.Plan {
	p := &plan.Plan{
		FormatVersion: plan.FormatVersion,
		Environment:   env,
		Provider:      "sim",
		CreatedAt:     time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC),
		Changes:       changes,
		Lineage:       "4f1c2a9e-lineage",
		Serial:        7,
		Prefix:        "a1b2c3d4",
		StateExists:   true,
		ConfigHash:    "c0ffee",
	}
	p.Count()
	return p
}

// fullPlan has every action kind, a sensitive value that forces a replace,
// unknown values, a reason, a provider ID and nested values.
func fullPlan() *plan.Plan {
	sg := change(plan.Create, "SecurityGroup", "web-sg", 1,
		plan.PropChange{Path: "network", New: value.Unknown, Unknown: true},
		prop("ingress", nil, []any{map[string]any{"port": 443, "cidr": "0.0.0.0/0"}}))
	lb := change(plan.Update, "LoadBalancer", "web-lb", 3,
		prop("port", 80, 443),
		prop("tags", map[string]any{"team": "web"}, map[string]any{"team": "edge", "tier": "front"}))
	lb.ProviderID = "lb-42"
	vm := change(plan.Replace, "Vm", "web", 2,
		plan.PropChange{Path: "image", Old: "debian-11", New: "debian-12", ForcesReplace: true, ReplaceReason: "an EC2 instance's AMI is chosen at launch"},
		plan.PropChange{Path: "userData", Old: secret, New: secret + "-2", Sensitive: true, ForcesReplace: true},
		plan.PropChange{Path: "subnet", Old: "101", New: value.Unknown, Unknown: true})
	vm.ProviderID, vm.ReplaceOrder = "100", plan.DestroyBeforeCreate
	old := change(plan.Destroy, "Vm", "old-worker", 2, prop("size", "small", nil))
	old.ProviderID = "17"
	gone := change(plan.Create, "Vm", "batch", 2, prop("size", nil, "large"))
	gone.Reason = "gone from the cloud"
	key := change(plan.Forget, "SshKey", "old-key", 0)
	key.Reason = "gone from the cloud and from config"
	return newPlan("prod",
		change(plan.Create, "Vpc", "main-vpc", 0, prop("cidr", nil, "10.0.0.0/16"), prop("distributeAcrossAzs", nil, 2)),
		sg, vm, gone, lb, old, key,
		change(plan.NoOp, "Database", "app-db", 1))
}

// cbdPlan replaces a security group that a Vm which stays uses: its
// replacement first, under another cloud name, then the Vm moves to it,
// then the group is destroyed.
func cbdPlan() *plan.Plan {
	sg := change(plan.Replace, "SecurityGroup", "web-sg", 1,
		plan.PropChange{Path: "network", Old: "101", New: value.Unknown, Unknown: true, ForcesReplace: true, ReplaceReason: "a security group belongs to its network for life"})
	sg.ProviderID, sg.ReplaceOrder = "201", plan.CreateBeforeDestroy
	sg.PriorCloudName, sg.CloudName = "a1b2c3d4-web-sg", "a1b2c3d4-web-sg-3e1f0a"
	vm := change(plan.Update, "Vm", "web", 2,
		plan.PropChange{Path: "securityGroups[0]", Old: "201", New: value.Unknown, Unknown: true})
	vm.ProviderID, vm.Dependencies = "100", []string{"web-sg"}
	return newPlan("prod", sg, vm)
}

// bigPlan has n changes: mostly creates, some updates, destroys and replaces.
func bigPlan(n int) *plan.Plan {
	var cs []plan.Change
	for i := range n {
		name := fmt.Sprintf("vm-%05d", i)
		switch {
		case i%50 == 7:
			c := change(plan.Destroy, "Vm", name, 2, prop("size", "small", nil))
			c.ProviderID = fmt.Sprint(1000 + i)
			cs = append(cs, c)
		case i%50 == 13:
			cs = append(cs, change(plan.Replace, "Vm", name, 2,
				plan.PropChange{Path: "image", Old: "debian-11", New: "debian-12", ForcesReplace: true}))
		case i%10 == 3:
			cs = append(cs, change(plan.Update, "Vm", name, 2, prop("size", "small", "medium")))
		case i%10 == 5:
			cs = append(cs, change(plan.NoOp, "Vm", name, 2))
		default:
			cs = append(cs, change(plan.Create, "Vm", name, 2,
				prop("size", nil, "small"), prop("image", nil, "debian-12"),
				plan.PropChange{Path: "network", New: value.Unknown, Unknown: true}))
		}
	}
	return newPlan("prod", cs...)
}

func meta() Meta {
	return Meta{
		CommitSHA:   "0123456789abcdef0123456789abcdef01234567",
		Digest:      "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		RunURL:      "https://github.com/acme/infra/actions/runs/42",
		ArtifactURL: "https://github.com/acme/infra/actions/runs/42/artifacts/7",
		Environment: "prod",
	}
}

// withConfig embeds a desired config holding the secret, as a saved plan does.
func withConfig(p *plan.Plan) *plan.Plan {
	p.Config = &config.Config{
		Provider: config.ProviderConfig{Name: "sim"},
		Resources: []*config.Resource{{
			Name: "web", Type: "Vm",
			Properties: map[string]any{"userData": secret + "-2", "size": "small", "count": 2.0},
		}},
	}
	p.Levels = map[string]int{"web": 2, "main-vpc": 0}
	return p
}
