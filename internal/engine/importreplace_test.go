package engine_test

import (
	"testing"
	"time"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/statemgr/local"
)

// TestImportThatWouldReplaceNamesTheCause: importing an object whose
// immutable property differs from the configuration is refused at plan,
// naming the property with the imported value against the configured one.
func TestImportThatWouldReplaceNamesTheCause(t *testing.T) {
	w := newWorld(t)
	s, err := sim.New(sim.Options{Dir: w.simDir})
	if err != nil {
		t.Fatal(err)
	}
	obj, err := s.Create(t.Context(), provider.Resource{Name: "x", Type: "SshKey", CloudName: "outside", Properties: map[string]any{"publicKey": "ssh-ed25519 AAAA"}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := parse(t, `
resources:
  key: { type: SshKey, properties: { publicKey: ssh-ed25519 BBBB } }
import:
  - { to: key, id: "`+obj.ID+`" }
`)
	_, err = w.engine().Plan(t.Context(), cfg)
	want := `kyku.yaml:2:3: resource "key": the object to import (id ` + obj.ID + `) differs in what cannot change in place (publicKey: imported "ssh-ed25519 AAAA", configured "ssh-ed25519 BBBB"); make the configuration match it, or let Kyku create a new one`
	if err == nil || err.Error() != want {
		t.Errorf("plan: %v\nwant: %s", err, want)
	}
	if got := w.cloud(); len(got) != 1 {
		t.Errorf("cloud = %v, want the one key untouched", got)
	}
}

// TestImportAskedOfTheCloud: an import is planned as every change is, so
// what the provider's check refuses of the update that makes the object
// match the configuration (a database's storage cannot shrink) is refused
// at plan, positioned, before anything is imported.
func TestImportAskedOfTheCloud(t *testing.T) {
	w := newWorld(t)
	s, err := sim.New(sim.Options{Dir: w.simDir})
	if err != nil {
		t.Fatal(err)
	}
	obj, err := s.Create(t.Context(), provider.Resource{Name: "x", Type: "Database", CloudName: "outside",
		Properties: map[string]any{"engine": "postgres", "storageGb": float64(30)}})
	if err != nil {
		t.Fatal(err)
	}
	p := &ruled{Provider: s}
	e := engine.New(p, local.New(t.TempDir(), "", local.Options{}), engine.Options{DeployPrefix: "test", RetryBase: time.Millisecond})
	_, err = e.Plan(t.Context(), parse(t, `
resources:
  db: { type: Database, properties: { engine: postgres, storageGb: 10 } }
import:
  - { to: db, id: "`+obj.ID+`" }
`))
	if want := `kyku.yaml:2:57: resource "db" (Database): property "storageGb": storage only grows`; err == nil || err.Error() != want {
		t.Errorf("plan: %v\nwant: %s", err, want)
	}
	if len(p.asked) != 1 || p.asked[0].ID != obj.ID || p.asked[0].Prior["storageGb"] != float64(30) {
		t.Errorf("the check was asked %+v; want the import, against the object found", p.asked)
	}
}
