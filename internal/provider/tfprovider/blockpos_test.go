package tfprovider_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestNestedBlockErrorsAtTheAttribute: what the schema refuses inside a
// nested block is reported at the attribute's own file:line:col, whether
// the block list is written as a list or, for one block, as a map; a
// missing one at the block.
func TestNestedBlockErrorsAtTheAttribute(t *testing.T) {
	w := newWorld(t, tfplugintest.SDK)
	cfg := w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a:
    type: TP_item
    properties:
      name: a
      rule:
        port: eighty
        cidr: 10.0.0.0/8
  b:
    type: TP_item
    properties:
      name: b
      rule: { cidr: 10.0.0.0/8, prot: 80 }
  c:
    type: TP_item
    properties:
      name: c
      rule:
        - port: 80
        - { port: 81, cidr: [ x ] }
`)
	_, err := w.engine(cfg).Plan(t.Context(), cfg)
	var ds diag.Diagnostics
	if !errors.As(err, &ds) {
		t.Fatalf("plan: %v, want diagnostics", err)
	}
	var got []string
	for _, d := range ds {
		got = append(got, d.String())
	}
	want := []string{
		`kyku.yaml:9:9: resource "a" (sdktest_item): property "rule[0].port": a number is required`,
		`kyku.yaml:15:7: resource "b" (sdktest_item): property "rule[0].port": the argument "port" is required`,
		`kyku.yaml:15:33: resource "b" (sdktest_item): property "rule[0].prot": unsupported argument "prot" (did you mean "port"?)`,
		`kyku.yaml:22:23: resource "c" (sdktest_item): property "rule[1].cidr": string required, but have tuple`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
