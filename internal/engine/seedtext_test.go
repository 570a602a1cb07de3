package engine_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/render"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// seedBefore and seedAfter rebuild the planner seed's plan-output example
// on the sim: after applying seedBefore, planning seedAfter creates
// main-vpc, web-sg and web-server, updates web-lb's port, destroys
// old-worker and leaves app-db alone.
const seedBefore = `
resources:
  app-db:
    type: Database
    properties: { engine: postgres }
  web-lb:
    type: LoadBalancer
    properties: { port: 80 }
    dependsOn: [ app-db ]
  old-worker:
    type: Vm
    properties: { image: debian-12 }
    dependsOn: [ web-lb ]
`

const seedAfter = `
resources:
  app-db:
    type: Database
    properties: { engine: postgres }
  main-vpc:
    type: Vpc
    properties: { cidr: 10.0.0.0/16 }
  web-sg:
    type: SecurityGroup
    properties: { network: "${main-vpc}" }
  web-server:
    type: Vm
    properties: { network: "${main-vpc}", securityGroups: [ "${web-sg}" ], image: debian-12 }
  web-lb:
    type: LoadBalancer
    properties: { port: 443 }
    dependsOn: [ app-db, web-server ]
`

// The engine's own plan of the seed's example, rendered in the human
// format, lists its changes in the seed's order: creates and the update by
// level, the destroy, then the no-op (the seed counts 2 no-ops but lists
// one; this plan has one).
func TestSeedPlanOutput(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, seedBefore))
	p := mustPlan(t, e, parse(t, seedAfter))
	var b bytes.Buffer
	if err := render.PlanText(&b, p, render.TextOptions{ShowNoOp: true}); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "seed_plan.txt.golden")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("plan output (-golden +got):\n%s", diff)
	}
	// The seed's text, line for line, apart from its no-op count and the
	// attributes under each create, which Kyku lists as OpenTofu does
	// and the seed's example leaves out.
	seed := `Plan: 3 to create, 1 to update, 0 to replace, 1 to destroy, 1 no-op

Changes:
  + create Vpc "main-vpc"                    (level 0)
  + create SecurityGroup "web-sg"            (level 1)
  + create Vm "web-server"                   (level 2)
  ~ update LoadBalancer "web-lb"             (level 3)
      port: 80 → 443
  - destroy Vm "old-worker"                  (level 2)
  ✓ no-op Database "app-db"
`
	var lines []string
	inCreate := false
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "Read ") {
			continue // what the plan read (docs/plan-reads.md): the seed's example predates it
		}
		if strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "      ") {
			inCreate = strings.HasPrefix(l, "  + create ")
		} else if inCreate && strings.HasPrefix(l, "      ") {
			continue
		}
		lines = append(lines, l)
	}
	if diff := cmp.Diff(strings.Split(seed, "\n"), lines); diff != "" {
		t.Errorf("engine output differs from the seed's example (-seed +got):\n%s", diff)
	}
}
