package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/value"
)

// asText is v with every value.Template (a template reading resources
// plainly) as its text in Kyku's reference form, "db-${main-vpc}":
// what the tests written against that form compare.
func asText(v any) any {
	switch x := v.(type) {
	case *value.Template:
		return x.String()
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = asText(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = asText(e)
		}
		return out
	}
	return v
}

// textForm compares property maps as asText shows them.
var textForm = cmp.Transformer("asText", func(m map[string]any) map[string]any {
	out, _ := asText(m).(map[string]any)
	return out
})

// TestReferenceErrorsWhereWritten: a reference to a resource, or to an
// output, that does not exist, and one naming a resource of the wrong
// kind, are reported where the reference itself is written (not where
// its string starts), with the source line marking it; in a template
// holding several, at the one at fault.
func TestReferenceErrorsWhereWritten(t *testing.T) {
	for _, tc := range []struct {
		name, line, want string
		col              int
	}{
		{"unknown resource, second in the string", `name: "${net}-and-${nett}"`, `resource "web-sg": property "tags.name": reference to unknown resource "nett" (did you mean "net"?)`, 29},
		{"unknown output", `name: "a ${net.idd}"`, `resource "web-sg": "${net.idd}": Vpc has no output "idd" (did you mean "id"?)`, 20},
		{"unknown resource in a computing template", `name: "${lower(nett.id)}"`, `resource "web-sg": property "tags.name": reference to unknown resource "nett" (did you mean "net"?)`, 24},
		{"wrong kind", `network: "${key}"`, `resource "web-sg": property "network" must reference a Vpc, but "key" is a SshKey`, 19},
	} {
		t.Run(tc.name, func(t *testing.T) {
			network := `network: "${net}"`
			tags := "        " + tc.line
			if strings.HasPrefix(tc.line, "network:") {
				network, tags = tc.line, "        name: x"
			}
			src := "resources:\n  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }\n  key: { type: SshKey, properties: { publicKey: k } }\n  web-sg:\n    type: SecurityGroup\n    properties:\n      " + network + "\n      tags:\n" + tags + "\n"
			ds := diagnostics(t, File{Name: "kyku.yaml", Data: []byte(src)})
			if len(ds) != 1 {
				t.Fatalf("want one error, got %v", ds)
			}
			line := 9
			if strings.HasPrefix(tc.line, "network:") {
				line = 7
			}
			if diff := cmp.Diff(diag.Pos{File: "kyku.yaml", Line: line, Col: tc.col}, ds[0].Pos); diff != "" {
				t.Errorf("position (-want +got):\n%s", diff)
			}
			if ds[0].Message != tc.want {
				t.Errorf("message\n got %s\nwant %s", ds[0].Message, tc.want)
			}
			if !strings.Contains(ds[0].Source, strings.TrimSpace(tc.line)) || !strings.Contains(ds[0].Source, "^") {
				t.Errorf("source line not shown marked:\n%s", ds[0].Source)
			}
		})
	}
}

// TestTemplateTextHoldingAReference: a variable whose value is a
// reference in Kyku's form ("${db}"), read into a template that reads a
// resource too, reads both: the template's references are what its text
// (the form a saved plan keeps) reads back as, so the graph orders db
// first and a saved plan applies what the plan showed.
func TestTemplateTextHoldingAReference(t *testing.T) {
	src := "variables:\n  x: { type: string, default: \"${db}\" }\nresources:\n  db: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }\n  net: { type: Vpc, properties: { cidr: 10.1.0.0/16 } }\n  sg:\n    type: SecurityGroup\n    properties:\n      network: \"${net}\"\n      tags: { name: \"${var.x}-${net.id}\" }\n"
	cfg, err := Parse([]File{{Name: "kyku.yaml", Data: []byte(src)}})
	if err != nil {
		t.Fatal(err)
	}
	tags, _ := cfg.Resource("sg").Properties["tags"].(map[string]any)
	tp, ok := tags["name"].(*value.Template)
	if !ok {
		t.Fatalf("tags.name = %#v, want a template", tags["name"])
	}
	back, ok := value.ParseTemplate(tp.String())
	if !ok {
		t.Fatalf("%q reads back as no template", tp.String())
	}
	if diff := cmp.Diff(back.Refs(), tp.Refs()); diff != "" {
		t.Errorf("references (-as a saved plan reads them back +as planned):\n%s", diff)
	}
	var names []string
	for _, r := range tp.Refs() {
		names = append(names, r.Resource)
	}
	if diff := cmp.Diff([]string{"db", "net"}, names); diff != "" {
		t.Errorf("resources read (-want +got):\n%s", diff)
	}
}
