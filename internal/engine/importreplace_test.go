package engine_test

import (
	"context"
	"testing"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
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
	obj, err := s.Create(context.Background(), provider.Resource{Name: "x", Type: "SshKey", CloudName: "outside", Properties: map[string]any{"publicKey": "ssh-ed25519 AAAA"}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := parse(t, `
resources:
  key: { type: SshKey, properties: { publicKey: ssh-ed25519 BBBB } }
import:
  - { to: key, id: "`+obj.ID+`" }
`)
	_, err = w.engine().Plan(context.Background(), cfg)
	want := `kyku.yaml:2:3: resource "key": the object to import (id ` + obj.ID + `) differs in what cannot change in place (publicKey: imported "ssh-ed25519 AAAA", configured "ssh-ed25519 BBBB"); make the configuration match it, or let Kyku create a new one`
	if err == nil || err.Error() != want {
		t.Errorf("plan: %v\nwant: %s", err, want)
	}
	if got := w.cloud(); len(got) != 1 {
		t.Errorf("cloud = %v, want the one key untouched", got)
	}
}
