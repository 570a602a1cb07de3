package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kyku/action/internal/diag"
)

func mustLoad(t *testing.T, path string) *Config {
	t.Helper()
	cfg, err := Load(path)
	if err != nil {
		t.Fatalf("Load(%s):\n%v", path, err)
	}
	return cfg
}

func mustParse(t *testing.T, yaml string) *Config {
	t.Helper()
	cfg, err := Parse([]File{{Name: "kyku.yaml", Data: []byte(yaml)}})
	if err != nil {
		t.Fatalf("Parse:\n%v", err)
	}
	return cfg
}

func TestQuickstartFromIssue(t *testing.T) {
	path := filepath.Join("testdata", "quickstart.yaml")
	cfg := mustLoad(t, path)

	if cfg.Provider.Name != "sim" || cfg.Backend != nil {
		t.Errorf("provider %q backend %v, want sim and none", cfg.Provider.Name, cfg.Backend)
	}
	var names []string
	for _, r := range cfg.Resources {
		names = append(names, r.Name)
	}
	if diff := cmp.Diff([]string{"main-vpc", "web", "web-sg"}, names); diff != "" {
		t.Errorf("resources not sorted by name (-want +got):\n%s", diff)
	}
	want := map[string]*Resource{
		"main-vpc": {Name: "main-vpc", Type: "Vpc", Properties: map[string]any{
			"cidr": "10.0.0.0/16", "distributeAcrossAzs": float64(2)}},
		"web-sg": {Name: "web-sg", Type: "SecurityGroup", Properties: map[string]any{
			"network": "${main-vpc}",
			// protocol defaulted inside the list of objects
			"ingress": []any{map[string]any{"port": float64(443), "cidr": "0.0.0.0/0", "protocol": "tcp"}},
		}},
		"web": {Name: "web", Type: "Vm", Protect: true, IgnoreChanges: []string{"size"}, DependsOn: []string{"web-sg"},
			Properties: map[string]any{
				"network": "${main-vpc}", "subnet": "${main-vpc-subnet-public-0}",
				"securityGroups": []any{"${web-sg}"}, "size": "small", "image": "debian-12",
			}},
	}
	for _, r := range cfg.Resources {
		if diff := cmp.Diff(want[r.Name], r, cmpopts.IgnoreFields(Resource{}, "Pos", "PropPos"), textForm); diff != "" {
			t.Errorf("resource %s (-want +got):\n%s", r.Name, diff)
		}
	}
	web := cfg.Resource("web")
	if got, want := web.Pos, (diag.Pos{File: path, Line: 11, Col: 3}); got != want {
		t.Errorf("web.Pos = %v, want %v", got, want)
	}
	if got, want := web.PropPos.At("subnet"), (diag.Pos{File: path, Line: 13, Col: 43}); got != want {
		t.Errorf("web.PropPos[subnet] = %v, want %v", got, want)
	}
	wantOut := []*Output{{Name: "webIp", Value: "${web.publicIp}", Pos: diag.Pos{File: path, Line: 18, Col: 3}}}
	for _, o := range cfg.Outputs {
		o.Value = asText(o.Value)
	}
	if diff := cmp.Diff(wantOut, cfg.Outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
}

func TestExampleQuickstartLoads(t *testing.T) {
	cfg := mustLoad(t, filepath.Join("..", "..", "examples", "quickstart"))
	for _, r := range cfg.Resources {
		if r.Protect {
			t.Errorf("resource %q is protected; the quick start must be destroyable", r.Name)
		}
	}
	if err := InjectAutoSubnets(cfg, []string{"sim-a", "sim-b"}); err != nil {
		t.Fatal(err)
	}
	levels, err := BuildGraph(cfg).Levels()
	if err != nil {
		t.Fatal(err)
	}
	if levels["web-lb"] != 4 || levels["main-vpc-subnet-public-1"] != 1 {
		t.Errorf("levels: web-lb %d (want 4), main-vpc-subnet-public-1 %d (want 1)", levels["web-lb"], levels["main-vpc-subnet-public-1"])
	}
}

func TestDirectoryMerges(t *testing.T) {
	dir := filepath.Join("testdata", "split")
	cfg := mustLoad(t, dir)
	wantFiles := []string{filepath.Join(dir, "10-network.yml"), filepath.Join(dir, "20-app.yaml")}
	if diff := cmp.Diff(wantFiles, cfg.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	wantProvider := ProviderConfig{Name: "aws", Settings: map[string]string{"region": "eu-central-1", "profile": "dev"},
		Pos: diag.Pos{File: wantFiles[0], Line: 1, Col: 1}}
	if diff := cmp.Diff(wantProvider, cfg.Provider); diff != "" {
		t.Errorf("provider (-want +got):\n%s", diff)
	}
	wantBackend := &Backend{Type: "s3", Bucket: "kyku-state", Prefix: "team/app", Region: "eu-central-1",
		Endpoint: "http://localhost:9000", UsePathStyle: true, KMSKeyID: "alias/kyku", BackupRetention: 10,
		Pos: diag.Pos{File: wantFiles[0], Line: 5, Col: 1}}
	if diff := cmp.Diff(wantBackend, cfg.Backend); diff != "" {
		t.Errorf("backend (-want +got):\n%s", diff)
	}
	sg := cfg.Resource("sg")
	if sg == nil || sg.Pos.File != wantFiles[1] || cfg.Resource("net") == nil {
		t.Fatalf("resources not merged: %+v", cfg.Resources)
	}
	if len(cfg.Outputs) != 1 || cfg.Outputs[0].Pos.File != wantFiles[1] {
		t.Errorf("outputs not merged: %+v", cfg.Outputs)
	}
}

func TestLoadErrors(t *testing.T) {
	empty := t.TempDir()
	if _, err := Load(empty); err == nil || !strings.Contains(err.Error(), "no *.yaml or *.yml files") {
		t.Errorf("empty dir: err = %v", err)
	}
	_, err := Load(filepath.Join(empty, "missing.yaml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v, want wrapping os.ErrNotExist", err)
	}
}

func TestValuesAndDefaults(t *testing.T) {
	tests := []struct {
		name, yaml string
		res        string
		want       map[string]any
	}{
		{"defaults applied", "resources:\n  db:\n    type: Database\n    properties: { engine: mysql }\n", "db",
			map[string]any{"engine": "mysql", "size": "small", "storageGb": float64(20)}},
		{"null means unset", "resources:\n  db:\n    type: Database\n    properties: { engine: mysql, size: }\n", "db",
			map[string]any{"engine": "mysql", "size": "small", "storageGb": float64(20)}},
		{"ints canonical, integral float accepted", "resources:\n  tg:\n    type: TargetGroup\n    properties: { port: 8080.0 }\n", "tg",
			map[string]any{"port": float64(8080), "protocol": "http"}},
		{"tags with references", "resources:\n  k:\n    type: SshKey\n    properties: { publicKey: x, tags: { owner: \"team-${k2.id}\" } }\n  k2:\n    type: SshKey\n    properties: { publicKey: y }\n", "k",
			map[string]any{"publicKey": "x", "tags": map[string]any{"owner": "team-${k2.id}"}}},
		{"aliases expand", "resources:\n  k:\n    type: SshKey\n    properties: { publicKey: x, tags: &t { a: b } }\n  k2:\n    type: SshKey\n    properties: { publicKey: y, tags: *t }\n", "k2",
			map[string]any{"publicKey": "y", "tags": map[string]any{"a": "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustParse(t, tt.yaml)
			if diff := cmp.Diff(tt.want, cfg.Resource(tt.res).Properties, textForm); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestProviderAndBackendForms(t *testing.T) {
	if got := mustParse(t, "resources: {}\n").Provider.Name; got != "sim" {
		t.Errorf("default provider = %q, want sim", got)
	}
	cfg := mustParse(t, "provider: aws\nbackend: local\n")
	if cfg.Provider.Name != "aws" || cfg.Backend == nil || cfg.Backend.Type != "local" {
		t.Errorf("provider %+v backend %+v", cfg.Provider, cfg.Backend)
	}
	if cfg := mustParse(t, "backend: { type: local, path: state }\n"); cfg.Backend.Path != "state" {
		t.Errorf("local path = %q", cfg.Backend.Path)
	}
	if cfg := mustParse(t, "# only comments\n"); len(cfg.Resources) != 0 {
		t.Errorf("empty file has resources")
	}
}

// TestDiagnosticsSortedAndComplete: every error is reported, in file/line
// order, whatever order the files come in.
func TestDiagnosticsSortedAndComplete(t *testing.T) {
	b := File{Name: "b.yaml", Data: []byte("resources:\n  x:\n    type: Nope\n  y:\n    type: Nope\n")}
	a := File{Name: "a.yaml", Data: []byte("bogus: 1\n")}
	_, err := Parse([]File{b, a})
	want := strings.Join([]string{
		`a.yaml:1:1: top level: unknown key "bogus" (expected one of: backend, data, encryption, environments, import, moved, outputs, provider, providers, resources, variables)`,
		`b.yaml:3:11: resource "x": unknown type "Nope" (expected one of: Database, LoadBalancer, SecurityGroup, SshKey, Subnet, TargetGroup, Vm, Vpc)`,
		`b.yaml:5:11: resource "y": unknown type "Nope" (expected one of: Database, LoadBalancer, SecurityGroup, SshKey, Subnet, TargetGroup, Vm, Vpc)`,
	}, "\n")
	if err == nil || err.Error() != want {
		t.Errorf("got:\n%v\nwant:\n%s", err, want)
	}
}

// BenchmarkParse10k parses 10,000 resources (Vpcs, security groups, target
// groups, and Vms referencing all three, with interpolated tags).
func BenchmarkParse10k(b *testing.B) {
	data := bigConfig(10000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse([]File{{Name: "big.yaml", Data: data}}); err != nil {
			b.Fatal(err)
		}
	}
}

func bigConfig(n int) []byte {
	var s strings.Builder
	s.WriteString("resources:\n")
	per := n / 4
	for i := range per {
		fmt.Fprintf(&s, "  vpc-%d:\n    type: Vpc\n    properties: { cidr: 10.%d.0.0/16 }\n", i, i%250)
		fmt.Fprintf(&s, "  sg-%d:\n    type: SecurityGroup\n    properties:\n      network: ${vpc-%d}\n      ingress: [ { port: 443, cidr: 0.0.0.0/0 } ]\n", i, i)
		fmt.Fprintf(&s, "  tg-%d:\n    type: TargetGroup\n    properties: { port: 80 }\n", i)
		fmt.Fprintf(&s, "  vm-%d:\n    type: Vm\n    dependsOn: [ tg-%d ]\n    properties:\n      network: ${vpc-%d}\n      securityGroups: [ \"${sg-%d}\" ]\n      image: debian-12\n      tags: { name: \"vm-${vpc-%d.id}\" }\n", i, i, i, i, i)
	}
	return []byte(s.String())
}

func TestBigConfigParses(t *testing.T) {
	cfg, err := Parse([]File{{Name: "big.yaml", Data: bigConfig(400)}})
	if err != nil {
		t.Fatal(err)
	}
	levels, err := BuildGraph(cfg).Levels()
	if err != nil || levels["vm-7"] != 2 || levels["sg-7"] != 1 {
		t.Errorf("levels vm-7=%d sg-7=%d err=%v", levels["vm-7"], levels["sg-7"], err)
	}
}

// TestConcurrentReads: the engine's workers look resources up in parallel;
// run with -race.
func TestConcurrentReads(t *testing.T) {
	cfg := mustLoad(t, filepath.Join("testdata", "quickstart.yaml"))
	if err := InjectAutoSubnets(cfg, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	for range 4 {
		go func() {
			done <- cfg.Resource("main-vpc-subnet-public-0") != nil && cfg.Resource("web") != nil
		}()
	}
	for range 4 {
		if !<-done {
			t.Error("lookup failed")
		}
	}
}

// TestPropPosReachesListElementsAndFields: PropPos holds where every list
// element, object field and map entry of a property is written, so a
// provider's refusal of one is positioned there.
func TestPropPosReachesListElementsAndFields(t *testing.T) {
	cfg, err := Parse([]File{{Name: "kyku.yaml", Data: []byte(`resources:
  sg:
    type: SecurityGroup
    properties:
      network: "${net}"
      ingress:
        - { port: 22, cidr: 10.0.0.0/16 }
        - port: 80
          cidr: 0.0.0.0/0
      tags: { team: web }
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }
`)}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for path, pos := range cfg.Resource("sg").PropPos.All() {
		got[path] = pos.String()
	}
	want := map[string]string{
		"network": "kyku.yaml:5:7", "ingress": "kyku.yaml:6:7", "tags": "kyku.yaml:10:7",
		"ingress[0]": "kyku.yaml:7:11", "ingress[0].port": "kyku.yaml:7:13", "ingress[0].cidr": "kyku.yaml:7:23",
		"ingress[1]": "kyku.yaml:8:11", "ingress[1].port": "kyku.yaml:8:11", "ingress[1].cidr": "kyku.yaml:9:11",
		"tags.team": "kyku.yaml:10:15",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PropPos (-want +got):\n%s", diff)
	}
}
