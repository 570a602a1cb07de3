package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/value"
)

const templateConfig = `variables:
  env: { type: string, default: prod }
  zones: { type: list, default: [ a, b ] }
  sizes: { type: map, default: { prod: large, dev: small } }
resources:
  main-vpc:
    type: Vpc
    properties:
      cidr: '${cidrsubnet("10.0.0.0/8", 8, 1)}'
      distributeAcrossAzs: "${length(var.zones)}"
      tags:
        name: "${upper(var.env)}"
        json: '${jsonencode({ env = var.env, n = 2 })}'
        kind: '${var.env == "prod" ? "live" : "test"}'
        all: '${join(",", [for z in var.zones : upper(z)])}'
        script: |
          %{ for z in var.zones }zone ${z};
          %{ endfor ~}
  web:
    type: Vm
    count: "${length(var.zones)}"
    properties:
      network: "${main-vpc}"
      subnet: "${main-vpc-subnet-public-0}"
      image: debian-12
      size: '${lookup(var.sizes, var.env, "small")}'
      tags:
        name: '${format("web-%02d", count.index)}'
        zone: "${var.zones[count.index]}"
        vpc: "vpc-${main-vpc}"
  edge:
    type: Vm
    properties:
      network: "${main-vpc}"
      image: debian-12
      tags:
        ip: "${upper(web[0].publicIp)}"
        ips: '${join(",", web[*].publicIp)}'
        net: "${lower(main-vpc)}"
outputs:
  ips: "${web[*].publicIp}"
  count: "${length(web[*].publicIp)}"
`

// TestTemplateEvaluated: a kyku.yaml string is an HCL template with
// OpenTofu's functions, operators, conditionals, for expressions,
// splats and directives; what the configuration knows is evaluated when
// it is read (a whole ${…} keeping its type), resources read plainly stay
// Kyku's references, and what computes with resources is an Expr reading
// exactly what it names.
func TestTemplateEvaluated(t *testing.T) {
	cfg, err := Parse([]File{{Name: "kyku.yaml", Data: []byte(templateConfig)}})
	if err != nil {
		t.Fatal(err)
	}
	vpc := cfg.Resource("main-vpc").Properties
	want := map[string]any{
		"cidr":                "10.1.0.0/16",
		"distributeAcrossAzs": float64(2),
		"tags": map[string]any{
			"name":   "PROD",
			"json":   `{"env":"prod","n":2}`,
			"kind":   "live",
			"all":    "A,B",
			"script": "zone a;\nzone b;\n",
		},
	}
	if diff := cmp.Diff(want, vpc); diff != "" {
		t.Errorf("main-vpc (-want +got):\n%s", diff)
	}
	for i, wantWeb := range []map[string]any{
		{"network": "${main-vpc}", "subnet": "${main-vpc-subnet-public-0}", "image": "debian-12", "size": "large",
			"tags": map[string]any{"name": "web-00", "zone": "a", "vpc": "vpc-${main-vpc}"}},
		{"network": "${main-vpc}", "subnet": "${main-vpc-subnet-public-0}", "image": "debian-12", "size": "large",
			"tags": map[string]any{"name": "web-01", "zone": "b", "vpc": "vpc-${main-vpc}"}},
	} {
		addr := value.InstanceName("web", i)
		if diff := cmp.Diff(wantWeb, cfg.Resource(addr).Properties, textForm); diff != "" {
			t.Errorf("%s (-want +got):\n%s", addr, diff)
		}
	}
	tags := cfg.Resource("edge").Properties["tags"].(map[string]any)
	for key, want := range map[string][]value.Ref{
		"ip":  {{Resource: "web[0]", Attr: "publicIp"}},
		"ips": {{Resource: "web[0]", Attr: "publicIp"}, {Resource: "web[1]", Attr: "publicIp"}},
		"net": {{Resource: "main-vpc"}},
	} {
		x, ok := tags[key].(value.Expr)
		if !ok {
			t.Errorf("edge tags.%s = %#v, want an Expr", key, tags[key])
			continue
		}
		if diff := cmp.Diff(want, x.Refs()); diff != "" {
			t.Errorf("edge tags.%s reads (-want +got):\n%s", key, diff)
		}
	}
	outs := map[string]any{}
	for _, o := range cfg.Outputs {
		outs[o.Name] = o.Value
	}
	if x, ok := outs["count"].(value.Expr); !ok || len(x.Refs()) != 2 {
		t.Errorf("output count = %#v, want an Expr reading both instances", outs["count"])
	}
	if got, want := asText(outs["ips"]), []any{"${web[0].publicIp}", "${web[1].publicIp}"}; !cmp.Equal(got, want) {
		t.Errorf("output ips = %#v, want %#v", got, want)
	}

	// Evaluated as the engine does: known values in, unknown ones flow.
	lookup := func(r value.Ref) (any, bool) {
		switch r {
		case value.Ref{Resource: "web[0]", Attr: "publicIp"}:
			return "203.0.113.7", true
		case value.Ref{Resource: "main-vpc"}:
			return "VPC-1", true
		}
		return nil, false
	}
	for key, want := range map[string]struct {
		v       any
		unknown bool
	}{
		"ip":  {"203.0.113.7", false},
		"ips": {value.Unknown, true},
		"net": {"vpc-1", false},
	} {
		v, unknown, err := tags[key].(value.Expr).Eval(lookup)
		if err != nil || v != want.v || unknown != want.unknown {
			t.Errorf("edge tags.%s = %v (unknown %v, err %v), want %v (unknown %v)", key, v, unknown, err, want.v, want.unknown)
		}
	}
}

// TestTemplateErrors: a template's problems are reported where they are
// written in the YAML file, with the source line, the field, and
// OpenTofu's message (a did-you-mean where it has one).
func TestTemplateErrors(t *testing.T) {
	for _, tc := range []struct {
		name, line, want string
		col              int
		source           bool
	}{
		{"unknown function", `name: "${uper(var.env)}"`, `resource "main-vpc": property "tags.name": Call to unknown function: There is no function named "uper". Did you mean "upper"?`, 18, true},
		{"wrong argument type", `name: "${length(5)}"`, `resource "main-vpc": property "tags.name": Error in function call: Call to function "length" failed: argument must be a string, a collection type, or a structural type.`, 18, true},
		{"unknown resource", `name: "${upper(main-vpcc.id)}"`, `resource "main-vpc": property "tags.name": reference to unknown resource "main-vpcc" (did you mean "main-vpc"?)`, 24, true},
		{"unknown variable", `name: "${upper(var.envv)}"`, `resource "main-vpc": unknown variable "envv" in ${var.envv} (did you mean "env"?)`, 15, false},
		{"malformed", `name: "${upper(var.env}"`, `resource "main-vpc": property "tags.name": malformed reference in "${upper(var.env}": expected ${name} or ${name.output}`, 15, true},
		{"wrong operand", `name: "${var.env + 1}"`, `resource "main-vpc": property "tags.name": Invalid operand: Unsuitable value for left operand: a number is required.`, 18, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "variables:\n  env: { type: string, default: prod }\nresources:\n  main-vpc:\n    type: Vpc\n    properties:\n      cidr: 10.0.0.0/16\n      tags:\n        " + tc.line + "\n"
			ds := diagnostics(t, File{Name: "kyku.yaml", Data: []byte(src)})
			if len(ds) != 1 {
				t.Fatalf("want one error, got %v", ds)
			}
			d := ds[0]
			if diff := cmp.Diff(diag.Pos{File: "kyku.yaml", Line: 9, Col: tc.col}, d.Pos); diff != "" {
				t.Errorf("position (-want +got):\n%s", diff)
			}
			if d.Message != tc.want {
				t.Errorf("message\n got %s\nwant %s", d.Message, tc.want)
			}
			if hasLine := strings.Contains(d.Source, tc.line); hasLine != tc.source {
				t.Errorf("source line shown: %v, want %v:\n%s", hasLine, tc.source, d.Source)
			}
		})
	}
}

// TestTemplateHyphenNames: resource names with '-' (HCL identifiers
// allow it) read as one name, bare or with an attribute, and a
// subtraction needs spaces, as in HCL.
func TestTemplateHyphenNames(t *testing.T) {
	src := `resources:
  main-vpc: { type: Vpc, properties: { cidr: 10.0.0.0/16, distributeAcrossAzs: 2 } }
  web:
    type: Vm
    properties:
      network: "${main-vpc}"
      subnet: "${main-vpc-subnet-public-0}"
      image: debian-12
      tags: { a: "x-${main-vpc-subnet-public-1.id}", b: "${5 - 2}" }
`
	cfg, err := Parse([]File{{Name: "kyku.yaml", Data: []byte(src)}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"network": "${main-vpc}", "subnet": "${main-vpc-subnet-public-0}", "image": "debian-12", "size": "small",
		"tags": map[string]any{"a": "x-${main-vpc-subnet-public-1.id}", "b": "3"}}
	if diff := cmp.Diff(want, cfg.Resource("web").Properties, textForm); diff != "" {
		t.Errorf("web (-want +got):\n%s", diff)
	}
}

// TestTemplateFilesConfined: a pull request's kyku.yaml reads files with
// file() and templatefile() only inside its repository, links resolved,
// as a .tf file does; its own files it reads.
func TestTemplateFilesConfined(t *testing.T) {
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, "infra")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, data string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(top, "secret.txt"), "runner-secret")
	write(filepath.Join(repo, "motd.txt"), "hello ${name}")
	if err := os.Symlink(filepath.Join(top, "secret.txt"), filepath.Join(repo, "infra", "link.txt")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, expr, want string
	}{
		{"own file", `${file("../motd.txt")}`, ""},
		{"own template", `${templatefile("../motd.txt", { name = "kyku" })}`, ""},
		{"parent directory", `${file("../../secret.txt")}`, "is outside the configuration's repository"},
		{"absolute path", `${file("` + filepath.ToSlash(filepath.Join(top, "secret.txt")) + `")}`, "is outside the configuration's repository"},
		{"link out", `${file("link.txt")}`, "is outside the configuration's repository"},
		{"template outside", `${templatefile("../../secret.txt", {})}`, "is outside the configuration's repository"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(repo, "infra", "kyku.yaml")
			write(path, "resources:\n  k:\n    type: SshKey\n    properties: { publicKey: '"+tc.expr+"' }\n")
			cfg, err := Load(path)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				got := cfg.Resource("k").Properties["publicKey"]
				if x, ok := got.(value.Expr); ok { // text holding "${" is a value, not a reference
					got, _, _ = x.Eval(nil)
				}
				want := "hello kyku"
				if tc.name == "own file" {
					want = "hello ${name}" // a value, not a reference to a resource "name"
				}
				if got != want {
					t.Errorf("publicKey = %#v, want %q", got, want)
				}
				return
			}
			var ds diag.Diagnostics
			if !errors.As(err, &ds) || len(ds) != 1 {
				t.Fatalf("want one diagnostic, got %v", err)
			}
			if !strings.Contains(ds[0].Message, tc.want) || strings.Contains(ds[0].String(), "runner-secret") {
				t.Errorf("got %s, want it refused (%q) without the file's text", ds[0], tc.want)
			}
			if ds[0].Pos.File != path || ds[0].Pos.Line != 4 {
				t.Errorf("at %s, want %s:4", ds[0].Pos, path)
			}
		})
	}
}

// TestTemplateSensitive: a template computing with a resource and a
// sensitive variable makes its property sensitive, and its description
// (hashes, plan files) holds neither the secret nor a digest of it, while
// a plain variable's value still tells two descriptions apart.
func TestTemplateSensitive(t *testing.T) {
	describe := func(pw, env string) (string, []string) {
		t.Helper()
		src := "variables:\n  pw: { type: string, default: " + pw + ", sensitive: true }\n  env: { type: string, default: " + env + " }\n" +
			"resources:\n  main-vpc: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }\n" +
			"  k: { type: SshKey, properties: { publicKey: '${lower(main-vpc)}-${var.pw}-${var.env}' } }\n"
		cfg, err := Parse([]File{{Name: "kyku.yaml", Data: []byte(src)}})
		if err != nil {
			t.Fatal(err)
		}
		r := cfg.Resource("k")
		b, err := json.Marshal(r.Properties["publicKey"])
		if err != nil {
			t.Fatal(err)
		}
		return string(b), r.Sensitive
	}
	a, sensitive := describe("hunter22", "prod")
	b, _ := describe("swordfish", "prod")
	c, _ := describe("hunter22", "dev")
	if !cmp.Equal(sensitive, []string{"publicKey"}) {
		t.Errorf("sensitive properties %v, want [publicKey]", sensitive)
	}
	if a != b || strings.Contains(a, "hunter22") {
		t.Errorf("the description depends on the secret:\n%s\n%s", a, b)
	}
	if a == c {
		t.Errorf("two values of env give one description: %s", a)
	}
}
