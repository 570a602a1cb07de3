package tfconfig_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/tfconfig"
)

// updating reports whether the test runs with -update (the flag package
// golden registers: a test of this package imports it).
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

const (
	kykuTypesBegin = "<!-- BEGIN kyku_ types: generated from package schema by TestKykuTypesReference (internal/tfconfig); do not edit. -->\n"
	kykuTypesEnd   = "<!-- END kyku_ types -->\n"
)

// TestKykuTypesReference: docs/configuration.md lists Kyku's own types as
// HCL names them (provider kyku, snake case), with every argument and
// attribute, as this package reads them; go test ./internal/tfconfig -run
// TestKykuTypesReference -update rewrites the table.
func TestKykuTypesReference(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "configuration.md")
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(page), kykuTypesBegin)
	_, after, ok2 := strings.Cut(rest, kykuTypesEnd)
	if !ok || !ok2 {
		t.Fatalf("%s has no %q … %q", path, kykuTypesBegin, kykuTypesEnd)
	}
	var b strings.Builder
	b.WriteString("\n| HCL type | Kyku type | Arguments (* required) | Attributes |\n|---|---|---|---|\n")
	for _, name := range schema.Names() {
		typ, _ := schema.Lookup(name)
		var args, attrs []string
		for _, p := range typ.PropNames() {
			arg := "`" + tfconfig.Snake(p) + "`"
			if typ.Props[p].Required {
				arg += "*"
			}
			args = append(args, arg)
		}
		for _, o := range typ.Outputs {
			attrs = append(attrs, "`"+tfconfig.Snake(o)+"`")
		}
		fmt.Fprintf(&b, "| `kyku_%s` | [%s](#%s) | %s | %s |\n", tfconfig.Snake(name), name, strings.ToLower(name), strings.Join(args, ", "), strings.Join(attrs, ", "))
	}
	b.WriteString("\n")
	got := before + kykuTypesBegin + b.String() + kykuTypesEnd + after
	if updating() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(string(page), got); diff != "" {
		t.Errorf("%s is stale (-page +types); regenerate it: go test ./internal/tfconfig -run TestKykuTypesReference -update\n%s", path, diff)
	}
}
