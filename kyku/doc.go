// Package kyku is Kyku's engine for Go programs: the seed's KykuEngine API,
// the way teams embed Terraform (terraform-exec) or Pulumi (the Automation
// API), without a CLI in between.
//
//	e := kyku.New(kyku.EngineOptions{StateDir: ".kyku-state"})
//	cfg, _ := kyku.LoadConfig("infra/")                 // a kyku.yaml, or a directory of *.yaml
//	p, _ := kyku.NewProvider(ctx, "sim", nil)           // or "aws", {"region": "eu-central-1"}
//	plan, _ := e.Plan(ctx, cfg, kyku.PlanOptions{Provider: p})
//	res, _ := e.Apply(ctx, cfg, kyku.ApplyOptions{Provider: p, AutoApprove: true}, plan)
//	outs, _ := e.GetOutputs(ctx, kyku.OutputOptions{Config: cfg})
//	_, _ = e.Destroy(ctx, kyku.DestroyOptions{Provider: p, AutoApprove: true})
//
// The lifecycle is the CLI's: every call takes the state lock of its
// environment; Plan, ReadState, GetOutputs, BuildGraph and a report-only
// Refresh write nothing; Apply and Destroy back the state up, journal every
// finished change before anything that depends on it starts, and apply
// nothing unless approved (AutoApprove, or a Confirm callback: the zero
// options are refused with ErrNotApproved). A plan passed to Apply is
// applied exactly, and refused (IsStale) when the state moved on since or
// planning it again gives other changes. A plan that would destroy every
// resource because the configuration has none is refused (IsDestroyAll)
// unless the options' AllowDestroyAll says so. Environment names are
// letters, digits, '_' and '-', at most 64 characters.
//
// Results are plain structs. Everything else (providers, backends, the
// plan file format) stays inside Kyku; a Plan round-trips through
// encoding/json as the plan file `kyku plan --out` writes.
//
// An Engine is safe for concurrent use; calls on one environment wait for
// each other through the state lock (LockTimeout 30 s).
package kyku
