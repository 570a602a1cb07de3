package tfprovider_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/kyku/action/internal/policy"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/state"
)

// TestWriteOnlyAttributeIsKeptNowhere: a write-only attribute set in
// clear is named by the plan and shown by none of its renderings nor the
// policy input; state keeps nothing of it; a reference to it, which
// could only read null, is refused.
func TestWriteOnlyAttributeIsKeptNowhere(t *testing.T) {
	const wo = "wo-value-Xy7kq"
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			head := `providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  pw: { type: TP_secret, properties: { name: pw, password_wo: ` + wo + ` } }
`
			cfg := w.parse(head)
			p := w.plan(cfg)
			if got := p.WriteOnly["pw"]; !slices.Equal(got, []string{"password_wo"}) {
				t.Errorf("the plan names %v as write-only, want password_wo", got)
			}
			var text, js bytes.Buffer
			if err := render.PlanText(&text, p, render.TextOptions{Verbose: true}); err != nil {
				t.Fatal(err)
			}
			if err := render.PlanJSON(&js, render.RedactPlan(p), render.JSONOptions{}); err != nil {
				t.Fatal(err)
			}
			in, err := policy.NewInput(p)
			if err != nil {
				t.Fatal(err)
			}
			input, _ := json.Marshal(in)
			for what, out := range map[string]string{"plan text": text.String(), "plan comment": render.PlanComment(p, render.Meta{}, 60000),
				"plan.json": js.String(), "policy input": string(input)} {
				if strings.Contains(out, "Xy7kq") {
					t.Errorf("the %s shows the write-only value:\n%s", what, out)
				}
			}
			if _, ok := in.Resources["pw"].Properties["password_wo"]; ok || in.Resources["pw"].Properties["name"] != "pw" {
				t.Errorf("the policy input's pw: %+v, want its name and no password_wo", in.Resources["pw"].Properties)
			}

			w.apply(cfg)
			data, err := state.Encode(w.state())
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), "Xy7kq") || !strings.Contains(string(data), `"name": "pw"`) {
				t.Errorf("state keeps the write-only value (or lost pw):\n%s", data)
			}

			cfg = w.parse(head + "  key: { type: SshKey, properties: { publicKey: \"${pw.password_wo}\" } }\n")
			_, err = w.engine(cfg).Plan(t.Context(), cfg)
			if err == nil || !strings.Contains(err.Error(), `"${pw.password_wo}": `+tp.Type+`_secret's attribute "password_wo" is write-only`) {
				t.Errorf("a reference to a write-only attribute: %v", err)
			}
		})
	}
}
