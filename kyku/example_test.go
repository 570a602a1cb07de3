package kyku_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/kyku/action/kyku"
)

const example = `
resources:
  net:
    type: Vpc
    properties: { cidr: 10.0.0.0/16 }
  db:
    type: Database
    properties: { network: "${net}", engine: postgres, storageGb: 20 }
  web:
    type: Vm
    properties: { network: "${net}", image: debian-12, size: small }
outputs:
  dbEndpoint: "${db.endpoint}"
`

// The whole lifecycle on the simulator: plan, apply that plan, read the
// outputs, destroy.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "kyku-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	cfg, err := kyku.ParseConfig("kyku.yaml", []byte(example))
	if err != nil {
		log.Fatal(err)
	}
	sim, err := kyku.SimProvider(filepath.Join(dir, "cloud"))
	if err != nil {
		log.Fatal(err)
	}
	e := kyku.New(kyku.EngineOptions{StateDir: filepath.Join(dir, "state"), DeployPrefix: "demo"})

	plan, err := e.Plan(ctx, cfg, kyku.PlanOptions{Provider: sim})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(plan)

	res, err := e.Apply(ctx, cfg, kyku.ApplyOptions{Provider: sim, AutoApprove: true}, plan)
	if err != nil {
		log.Fatal(err)
	}
	if err := res.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("\napplied %d changes, state serial %d\n", len(res.Succeeded), res.SerialAfter)

	outputs, err := e.GetOutputs(ctx, kyku.OutputOptions{Config: cfg})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("dbEndpoint =", outputs["dbEndpoint"])

	destroyed, err := e.Destroy(ctx, kyku.DestroyOptions{Provider: sim, AutoApprove: true})
	if err != nil {
		log.Fatal(err)
	}
	st, err := e.ReadState(ctx, "")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("destroyed %d, %d left in state\n", len(destroyed.Succeeded), len(st.Resources))

	// Output:
	// Plan: 3 to create, 0 to update, 0 to replace, 0 to destroy, 0 no-op
	//
	// Changes:
	//   + create Vpc "net"                         (level 0)
	//       cidr: 10.0.0.0/16
	//       distributeAcrossAzs: 0
	//   + create Database "db"                     (level 1)
	//       engine: postgres
	//       network: (known after apply: net)
	//       size: small
	//       storageGb: 20
	//   + create Vm "web"                          (level 1)
	//       image: debian-12
	//       network: (known after apply: net)
	//       size: small
	//
	// Changes to Outputs:
	//   + dbEndpoint: (known after apply)
	//
	// applied 3 changes, state serial 2
	// dbEndpoint = demo-db.db.sim.internal:5432
	// destroyed 3, 0 left in state
}

// A plan saved as JSON (the plan file) and applied later, exactly: here
// after a change to the config's storage, which shows as an update.
func ExampleEngine_Apply_savedPlan() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "kyku-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sim, err := kyku.SimProvider(filepath.Join(dir, "cloud"))
	if err != nil {
		log.Fatal(err)
	}
	e := kyku.New(kyku.EngineOptions{StateDir: filepath.Join(dir, "state"), DeployPrefix: "demo"})
	v1, err := kyku.ParseConfig("kyku.yaml", []byte(example))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := e.Apply(ctx, v1, kyku.ApplyOptions{Provider: sim, AutoApprove: true}, nil); err != nil {
		log.Fatal(err)
	}

	v2, err := kyku.ParseConfig("kyku.yaml", []byte(strings.Replace(example, "storageGb: 20", "storageGb: 50", 1)))
	if err != nil {
		log.Fatal(err)
	}
	plan, err := e.Plan(ctx, v2, kyku.PlanOptions{Provider: sim})
	if err != nil {
		log.Fatal(err)
	}
	file, err := json.Marshal(plan) // e.g. written to plan.json, reviewed, read back later
	if err != nil {
		log.Fatal(err)
	}

	var saved kyku.Plan
	if err := json.Unmarshal(file, &saved); err != nil {
		log.Fatal(err)
	}
	res, err := e.Apply(ctx, nil, kyku.ApplyOptions{Provider: sim, AutoApprove: true}, &saved)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range res.Succeeded {
		fmt.Println(c.Action, c.Type, c.Name)
	}
	for _, c := range saved.Changes {
		for _, pc := range c.Properties {
			fmt.Printf("  %s: %v → %v\n", pc.Path, pc.Old, pc.New)
		}
	}
	// Output:
	// update Database db
	//   storageGb: 20 → 50
}

// The dependency graph, auto-subnets included, without a provider or state.
func ExampleEngine_BuildGraph() {
	cfg, err := kyku.ParseConfig("kyku.yaml", []byte(`
resources:
  net:
    type: Vpc
    properties: { cidr: 10.0.0.0/16, distributeAcrossAzs: 1 }
  web:
    type: Vm
    properties: { network: "${net}", subnet: "${net-subnet-public-0}", image: debian-12 }
`))
	if err != nil {
		log.Fatal(err)
	}
	g, err := kyku.New(kyku.EngineOptions{}).BuildGraph(cfg)
	if err != nil {
		log.Fatal(err)
	}
	for level, names := range g.Levels() {
		fmt.Println(level, names)
	}
	// Output:
	// 0 [net]
	// 1 [net-subnet-private-0 net-subnet-public-0]
	// 2 [web]
}
