package main

import (
	"fmt"
	"testing"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

// TestBotPlanAfterAnUpgradeReadsKykusTypesAgain: the bot's engine records
// the bot's Kyku version as the provider version of Kyku's own types. A
// plan after an apply by the same version reads nothing from the cloud;
// after an upgrade it reads every object of Kyku's types again. Needs the
// S3 server (.ci/run provides it).
func TestBotPlanAfterAnUpgradeReadsKykusTypesAgain(t *testing.T) {
	s := s3test.Require(t)
	bucket := s.NewBucket(t)
	env := map[string]string{"AWS_ACCESS_KEY_ID": s.Access, "AWS_SECRET_ACCESS_KEY": s.Secret, "AWS_REGION": s.Region, "AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": "/nonexistent"}
	for k, v := range env {
		t.Setenv(k, v)
	}
	backend := fmt.Sprintf("backend: { type: s3, bucket: %s, prefix: acme/infra/prod, region: %s, endpoint: %q, usePathStyle: true }\n", bucket, s.Region, s.Endpoint)
	parse := func(yaml string) *config.Config {
		cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(yaml)}})
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	applied := parse("provider: { name: sim, dir: cloud }\n" + backend + "resources:\n  net: { type: Vpc, properties: { cidr: 10.1.0.0/16 } }\n  web: { type: Vm, properties: { image: debian-12, network: \"${net}\" } }\n")
	changed := parse("provider: { name: sim, dir: cloud }\n" + backend + "resources:\n  net: { type: Vpc, properties: { cidr: 10.1.0.0/16 } }\n  web: { type: Vm, properties: { image: debian-12, network: \"${net}\" } }\n  cache: { type: Vm, properties: { image: debian-12 } }\n")
	simRoot, tenant := t.TempDir(), bot.Tenant{Repo: "acme/infra", Namespace: "acme/infra"}
	getenv := func(k string) string { return env[k] }
	ctx := t.Context()

	ws, err := openerOf(getenv, simRoot, "v1.0.0 1111111")(ctx, tenant, applied, "prod")
	if err != nil {
		t.Fatal(err)
	}
	res, err := ws.Engine.Apply(ctx, applied, engine.ApplyOptions{AutoApprove: true}, nil)
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(ws.Close())
	for _, step := range []struct {
		name, version string
		read          int
	}{
		{"same version as the apply", "v1.0.0 1111111", 0},
		{"after an upgrade", "v1.1.0 2222222", 2},
	} {
		ws, err := openerOf(getenv, simRoot, step.version)(ctx, tenant, changed, "prod")
		must(err)
		p, err := ws.Engine.Plan(ctx, changed)
		must(err)
		must(ws.Close())
		if p.Reads == nil || p.Reads.Read != step.read || p.Reads.Objects != 2 {
			t.Errorf("%s: plan reads %+v, want %d of 2 objects", step.name, p.Reads, step.read)
		}
	}
}
