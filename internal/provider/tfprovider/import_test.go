package tfprovider_test

import (
	"testing"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestImportByAnIDThatIsNotTheObjectsID: a password's import ID is the
// password itself and its id is "none" (random_password's shape). The
// import entry's plan reads the object by the ID as written; apply, of
// the plan made then or of a saved plan, records exactly that object
// (never importing again by its id, which would adopt the password
// "none"); the next plan, the entry still there, is a no-op. kyku import
// does the same by hand.
func TestImportByAnIDThatIsNotTheObjectsID(t *testing.T) {
	const yaml = `providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  pw: { type: TP_password, properties: { length: 14, keepers: {} } }
  hand: { type: TP_password, properties: { length: 10, keepers: {} } }
import:
  - { to: pw, id: Sup3rS3cretVal }
`
	for _, tp := range testProviders {
		for _, saved := range []bool{false, true} {
			name := tp.Type
			if saved {
				name += "/saved plan"
			}
			t.Run(name, func(t *testing.T) {
				w := newWorld(t, tp)
				cfg := w.parse(yaml)
				if _, err := w.engine(cfg).Import(t.Context(), cfg, "hand", "An0therOne"); err != nil {
					t.Fatalf("kyku import: %v", err)
				}
				p := w.plan(cfg)
				pw := change(p, "pw")
				if pw == nil || pw.Action != plan.Import || pw.ImportID != "Sup3rS3cretVal" || pw.ProviderID != "none" || len(pw.Properties) != 0 {
					t.Fatalf("import plan: %+v", pw)
				}
				if h := change(p, "hand"); h == nil || h.Action != plan.NoOp {
					t.Errorf("the hand-imported password: %+v", h)
				}
				if saved {
					res, err := w.engine(cfg).Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true}, roundTripPlan(t, p))
					if err != nil || res.Err() != nil {
						t.Fatalf("apply --plan: %v %v", err, res.Err())
					}
				} else {
					w.apply(cfg)
				}
				st := w.state()
				for name, want := range map[string]string{"pw": "Sup3rS3cretVal", "hand": "An0therOne"} {
					r := st.Resources[name]
					if r == nil || r.ProviderID != "none" || r.Outputs["result"] != want || r.Outputs["length"] != float64(len(want)) {
						t.Errorf("%s in state: %+v, want the password %s", name, r, want)
					}
				}
				if p := w.plan(cfg); p.HasChanges() {
					t.Errorf("plan after apply: %+v", p.Changes)
				}
			})
		}
	}
}

// TestImportThatWouldReplaceIsRefusedNamingTheCause: an import its
// provider would plan as a replace is refused at plan, naming what its
// RequiresReplace names, with the imported value against the configured
// one: a length other than the imported password's, and (the framework
// provider's import sets keepers to an empty map, as time_static sets its
// triggers) keepers the configuration leaves out, which Kyku's own diff
// would count as no change.
func TestImportThatWouldReplaceIsRefusedNamingTheCause(t *testing.T) {
	tests := []struct {
		name  string
		tps   []tfplugintest.Provider
		props string
		want  string
	}{
		{"length", testProviders, "length: 20, keepers: {}", "(length: imported 14, configured 20)"},
		{"keepers", []tfplugintest.Provider{tfplugintest.Framework}, "length: 14", "(keepers: imported {}, configured not set)"},
	}
	for _, tt := range tests {
		for _, tp := range tt.tps {
			t.Run(tt.name+"/"+tp.Type, func(t *testing.T) {
				w := newWorld(t, tp)
				cfg := w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  pw: { type: TP_password, properties: { ` + tt.props + ` } }
import:
  - { to: pw, id: Sup3rS3cretVal }
`)
				_, err := w.engine(cfg).Plan(t.Context(), cfg)
				want := `kyku.yaml:4:3: resource "pw": the object to import (id Sup3rS3cretVal) differs in what cannot change in place ` + tt.want + `; make the configuration match it, or let Kyku create a new one`
				if err == nil || err.Error() != want {
					t.Errorf("plan: %v\nwant: %s", err, want)
				}
			})
		}
	}
}
