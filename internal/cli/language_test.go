package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/state"
)

// envConfig is one configuration for two environments: staging runs one
// small VM, prod three large ones.
const envConfig = `provider: sim
variables:
  size:     { type: string, default: small, allowed: [small, medium, large] }
  replicas: { type: number, default: 1, min: 1, max: 50 }
  zones:    { type: list, default: [a, b] }
  dbPass:   { type: string, sensitive: true }
environments:
  staging:
    variables: { dbPass: staging-pw-0001 }
  prod:
    variables: { size: large, replicas: 3, dbPass: prod-pw-0002 }
resources:
  main-vpc:
    type: Vpc
    properties: { cidr: 10.0.0.0/16 }
  web:
    type: Vm
    count: "${var.replicas}"
    properties:
      size: "${var.size}"
      image: debian-12
      network: "${main-vpc}"
      userData: "DB_PASS=${var.dbPass}"
      tags: { env: "${environment}", index: "${count.index}", pass: "${var.dbPass}" }
  edge:
    type: SecurityGroup
    forEach: "${var.zones}"
    properties: { network: "${main-vpc}", tags: { zone: "${each.key}" } }
  web-tg:
    type: TargetGroup
    properties: { targets: "${web[*]}" }
outputs:
  ips: "${web[*].publicIp}"
  first: "${web[0].publicIp}"
  pass: "${var.dbPass}"
`

// object is one simulated cloud object.
type object struct {
	ID         string         `json:"id"`
	Type       string         `json:"type"`
	CloudName  string         `json:"cloudName"`
	Properties map[string]any `json:"properties"`
}

// cloud returns the sim's objects by "Type/cloudName".
func (k *kyku) cloud() map[string]object {
	k.t.Helper()
	out := map[string]object{}
	files, _ := filepath.Glob(filepath.Join(k.dir, "cloud", "*", "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			k.t.Fatal(err)
		}
		var o object
		if err := json.Unmarshal(data, &o); err != nil {
			k.t.Fatal(err)
		}
		out[o.Type+"/"+o.CloudName] = o
	}
	return out
}

// state reads the state of env.
func (k *kyku) state(env string) *state.File {
	k.t.Helper()
	name := "state.json"
	if env != "" {
		name = "state." + env + ".json"
	}
	data, err := os.ReadFile(filepath.Join(k.dir, ".kyku", name))
	if err != nil {
		k.t.Fatal(err)
	}
	st, err := state.Decode(name, data)
	if err != nil {
		k.t.Fatal(err)
	}
	return st
}

func (k *kyku) write(config string) {
	k.t.Helper()
	if err := os.WriteFile(filepath.Join(k.dir, "kyku.yaml"), []byte(config), 0o644); err != nil {
		k.t.Fatal(err)
	}
}

func (k *kyku) ok(args ...string) string {
	k.t.Helper()
	code, out, errOut := k.run("", args...)
	if code != 0 {
		k.t.Fatalf("kyku %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestTwoEnvironmentsSideBySide(t *testing.T) {
	k := newKyku(t, envConfig)
	staging := k.ok("plan", "-e", "staging")
	if !strings.Contains(staging, "Plan: 5 to create") || strings.Contains(staging, "web[1]") {
		t.Errorf("staging plan:\n%s", staging)
	}
	prod := k.ok("plan", "-e", "prod")
	for _, want := range []string{"Plan: 7 to create", `+ create Vm web[2]`, `+ create SecurityGroup edge["b"]`} {
		if !strings.Contains(prod, want) {
			t.Errorf("prod plan lacks %q:\n%s", want, prod)
		}
	}
	k.ok("apply", "-e", "staging", "--auto-approve")
	out := k.ok("apply", "-e", "prod", "--auto-approve")
	for _, s := range []string{staging, prod, out} {
		if strings.Contains(s, "pw-000") {
			t.Errorf("a sensitive variable's value is shown:\n%s", s)
		}
	}
	if !strings.Contains(out, "pass = (sensitive)") {
		t.Errorf("apply's outputs do not mask the sensitive one:\n%s", out)
	}
	st, pr := k.state("staging"), k.state("prod")
	if diff := cmp.Diff([]string{`edge["a"]`, `edge["b"]`, "main-vpc", "web[0]", "web-tg"}, st.Names()); diff != "" {
		t.Errorf("staging state (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`edge["a"]`, `edge["b"]`, "main-vpc", "web[0]", "web[1]", "web[2]", "web-tg"}, pr.Names()); diff != "" {
		t.Errorf("prod state (-want +got):\n%s", diff)
	}
	cloud := k.cloud()
	vms := map[string]string{}
	for key, o := range cloud {
		if o.Type == "Vm" {
			vms[strings.TrimPrefix(key, "Vm/")] = o.Properties["size"].(string)
		}
	}
	sp, pp := st.Metadata.Prefix, pr.Metadata.Prefix
	want := map[string]string{sp + "-web-0": "small", pp + "-web-0": "large", pp + "-web-1": "large", pp + "-web-2": "large"}
	if diff := cmp.Diff(want, vms); diff != "" {
		t.Errorf("VMs in the cloud by cloud name → size (-want +got):\n%s", diff)
	}
	if got := cloud["Vm/"+pp+"-web-2"].Properties["tags"]; !cmp.Equal(got, map[string]any{"env": "prod", "index": "2", "pass": "prod-pw-0002"}) {
		t.Errorf("prod web[2] tags = %v", got)
	}
	// Each environment plans clean against its own state.
	for _, env := range []string{"staging", "prod"} {
		if out := k.ok("plan", "-e", env); !strings.Contains(out, "No changes.") {
			t.Errorf("second plan of %s:\n%s", env, out)
		}
	}
	if out := k.ok("output", "-e", "prod"); !strings.Contains(out, "pass = (sensitive)") || !strings.Contains(out, `ips = ["198.51.100.`) {
		t.Errorf("kyku output:\n%s", out)
	}
	if out := k.ok("output", "-e", "prod", "pass"); strings.TrimSpace(out) != "prod-pw-0002" {
		t.Errorf("kyku output pass = %q, want the value asked for by name", out)
	}
}

func TestCountShrinkAndForEachKeyThroughTheCLI(t *testing.T) {
	k := newKyku(t, envConfig)
	k.ok("apply", "-e", "prod", "--auto-approve")
	before := k.state("prod")
	out := k.ok("plan", "-e", "prod", "--var", "replicas=2", "--var", "zones=[a]")
	for _, want := range []string{"- destroy Vm web[2]", `- destroy SecurityGroup edge["b"]`, "~ update TargetGroup \"web-tg\"", "0 to create", "2 to destroy"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	k.env["KYKU_VAR_replicas"] = "2"
	k.ok("apply", "-e", "prod", "--var", "zones=[a]", "--auto-approve")
	after := k.state("prod")
	if diff := cmp.Diff([]string{`edge["a"]`, "main-vpc", "web[0]", "web[1]", "web-tg"}, after.Names()); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
	for _, n := range after.Names() {
		if before.Resources[n].ProviderID != after.Resources[n].ProviderID {
			t.Errorf("%s was replaced", n)
		}
	}
}

func TestMovedShowsMovesAndLeavesTheCloudAlone(t *testing.T) {
	k := newKyku(t, `provider: sim
resources:
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }
  app-server: { type: Vm, properties: { image: debian-12, network: "${net}" } }
`)
	k.ok("apply", "--auto-approve")
	before := k.cloud()
	id := k.state("").Resources["app-server"].ProviderID
	k.write(`provider: sim
resources:
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }
  web: { type: Vm, count: 1, properties: { image: debian-12, network: "${net}" } }
moved:
  - { from: app-server, to: "web[0]" }
`)
	out := k.ok("plan")
	for _, want := range []string{`→ move Vm web[0] (from "app-server")`, "0 to create, 0 to update, 0 to replace, 0 to destroy", "1 to move"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	k.ok("apply", "--auto-approve")
	after := k.cloud()
	var ids []string
	for _, o := range after {
		ids = append(ids, o.ID)
	}
	var was []string
	for _, o := range before {
		was = append(was, o.ID)
	}
	sort.Strings(ids)
	sort.Strings(was)
	if !cmp.Equal(ids, was) {
		t.Errorf("object IDs %v, before %v: the move created or destroyed something", ids, was)
	}
	st := k.state("")
	if r := st.Resources["web[0]"]; r == nil || r.ProviderID != id || r.CloudName != st.Metadata.Prefix+"-web-0" {
		t.Errorf("web[0] in state: %+v (want id %s, renamed)", r, id)
	}
	if _, ok := after["Vm/"+st.Metadata.Prefix+"-web-0"]; !ok {
		t.Errorf("the sim object was not renamed: %v", sortedKeys(after))
	}
	if out := k.ok("plan"); !strings.Contains(out, "No changes.") {
		t.Errorf("plan after the move:\n%s", out)
	}
	out = k.ok("state", "list")
	if !strings.Contains(out, "web[0]") || !strings.Contains(out, id) {
		t.Errorf("state list:\n%s", out)
	}
}

func TestImportThroughTheCLI(t *testing.T) {
	k := newKyku(t, `provider: sim
resources:
  key: { type: SshKey, properties: { publicKey: ssh-ed25519 AAAA, tags: { team: web } } }
  other: { type: SshKey, properties: { publicKey: ssh-ed25519 BBBB } }
`)
	s, err := sim.New(sim.Options{Dir: filepath.Join(k.dir, "cloud")})
	if err != nil {
		t.Fatal(err)
	}
	obj, err := s.Create(t.Context(), provider.Resource{
		Name: "by-hand", Type: "SshKey", CloudName: "made-by-hand",
		Properties: map[string]any{"publicKey": "ssh-ed25519 AAAA", "tags": map[string]any{"team": "ops"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := k.ok("import", "key", obj.ID)
	if !strings.Contains(out, "Imported SshKey key (id "+obj.ID+", cloud name made-by-hand)") {
		t.Errorf("import said:\n%s", out)
	}
	out = k.ok("plan")
	if !strings.Contains(out, `~ update SshKey "key"`) || !strings.Contains(out, "tags.team: ops → web") || !strings.Contains(out, "1 to create") {
		t.Errorf("plan after import:\n%s", out)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"import", "key", obj.ID}, "import: key is in state already (id " + obj.ID + "); forget it first with kyku state rm key"},
		{[]string{"import", "other", "987654"}, "import other: sim has no SshKey with id 987654"},
		{[]string{"import", "nope", obj.ID}, `import: "nope" is not in the configuration of the default environment`},
		{[]string{"import", "key"}, "import needs NAME and PROVIDER_ID"},
	} {
		code, _, errOut := k.run("", tt.args...)
		if code != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("kyku %v: exit %d, stderr %q; want %q", tt.args, code, errOut, tt.want)
		}
	}
	k.ok("apply", "--auto-approve")
	if out := k.ok("plan"); !strings.Contains(out, "No changes.") {
		t.Errorf("plan after apply:\n%s", out)
	}
	if o := k.cloud()["SshKey/made-by-hand"]; o.ID != obj.ID || !cmp.Equal(o.Properties["tags"], map[string]any{"team": "web"}) {
		t.Errorf("imported object after apply: %+v", o)
	}
}

func TestImportBlockPlansThenApplies(t *testing.T) {
	k := newKyku(t, "")
	s, _ := sim.New(sim.Options{Dir: filepath.Join(k.dir, "cloud")})
	obj, err := s.Create(t.Context(), provider.Resource{Name: "x", Type: "Vpc", CloudName: "legacy-net", Properties: map[string]any{"cidr": "10.9.0.0/16"}})
	if err != nil {
		t.Fatal(err)
	}
	k.write(`provider: sim
variables:
  netId: { type: string }
resources:
  net: { type: Vpc, properties: { cidr: 10.9.0.0/16 } }
import:
  - { to: net, id: "${var.netId}" }
`)
	k.env["KYKU_VAR_netId"] = obj.ID
	out := k.ok("plan")
	if !strings.Contains(out, `⇐ import Vpc "net" (id `+obj.ID+`)`) || !strings.Contains(out, "1 to import") {
		t.Errorf("plan:\n%s", out)
	}
	k.ok("apply", "--auto-approve")
	if r := k.state("").Resources["net"]; r == nil || r.ProviderID != obj.ID {
		t.Errorf("state: %+v", r)
	}
	if out := k.ok("plan"); !strings.Contains(out, "No changes.") {
		t.Errorf("plan after the import:\n%s", out)
	}
	if n := len(k.cloud()); n != 1 {
		t.Errorf("%d objects in the cloud, want the imported one only", n)
	}
}

func TestStateListMoveRemove(t *testing.T) {
	k := newKyku(t, `provider: sim
resources:
  keys: { type: SshKey, forEach: [a, b], properties: { publicKey: k } }
`)
	k.ok("apply", "--auto-approve")
	out := k.ok("state", "mv", "keys[a]", "keys[c]")
	if !strings.Contains(out, `Moved keys[a] to keys["c"] in state`) {
		t.Errorf("state mv:\n%s", out)
	}
	out = k.ok("state", "rm", `keys["b"]`)
	if !strings.Contains(out, `Removed keys["b"] from state`) {
		t.Errorf("state rm:\n%s", out)
	}
	out = k.ok("state", "list")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], `keys["c"]`) {
		t.Errorf("state list:\n%s", out)
	}
	if n := len(k.cloud()); n != 2 {
		t.Errorf("%d cloud objects: state commands must not touch the cloud", n)
	}
	// The config follows the repair: keys["c"] is unchanged; keys["b"]'s
	// object is no longer managed and stays in the cloud.
	k.write(`provider: sim
resources:
  keys: { type: SshKey, forEach: [c], properties: { publicKey: k } }
`)
	if out := k.ok("plan"); !strings.Contains(out, "No changes.") {
		t.Errorf("plan:\n%s", out)
	}
	// A new keys["a"] would get the cloud name keys["c"]'s object still
	// has: refused, never taken over.
	k.write(`provider: sim
resources:
  keys: { type: SshKey, forEach: [a, c], properties: { publicKey: k } }
`)
	code, _, errOut := k.run("", "plan")
	if code != 1 || !strings.Contains(errOut, `resource keys["a"] would be created with the cloud name`) {
		t.Errorf("plan of a clashing cloud name: exit %d\n%s", code, errOut)
	}
	code, _, errOut = k.run("", "state", "mv", "nothing", "x")
	if code != 1 || !strings.Contains(errOut, `state mv: "nothing" is not in state`) {
		t.Errorf("state mv of a missing name: %d %s", code, errOut)
	}
}

func TestTargetThroughTheCLI(t *testing.T) {
	k := newKyku(t, envConfig)
	out := k.ok("plan", "-e", "prod", "--target", "web[1]", "--target", "web-tg")
	for _, want := range []string{"Targeted: only web[1], web-tg and what it depends on.", "+ create Vm web[1]", `+ create Vm web[0]`, `+ create Vpc "main-vpc"`, `+ create TargetGroup "web-tg"`} {
		if !strings.Contains(out, want) {
			t.Errorf("targeted plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "edge") {
		t.Errorf("targeted plan has edge:\n%s", out)
	}
	k.ok("apply", "-e", "prod", "--target", "edge", "--auto-approve")
	if got := k.state("prod").Names(); !cmp.Equal(got, []string{`edge["a"]`, `edge["b"]`, "main-vpc"}) {
		t.Errorf("state after targeted apply: %v", got)
	}
	code, _, errOut := k.run("", "plan", "-e", "prod", "--target", "nope")
	if code != 1 || !strings.Contains(errOut, "--target nope: not in the configuration or the state") {
		t.Errorf("unknown target: %d %s", code, errOut)
	}
}

func TestValidateEnvironments(t *testing.T) {
	k := newKyku(t, envConfig)
	out := k.ok("validate")
	want := "The configuration is valid for environment prod: 7 resources (count and forEach instances included), 3 outputs.\n" +
		"The configuration is valid for environment staging: 5 resources (count and forEach instances included), 3 outputs.\n"
	if out != want {
		t.Errorf("validate:\n%s\nwant:\n%s", out, want)
	}
	if out := k.ok("validate", "-e", "staging"); !strings.Contains(out, "for environment staging") || strings.Contains(out, "prod") {
		t.Errorf("validate -e staging:\n%s", out)
	}
	k.write(strings.Replace(strings.Replace(envConfig, "replicas: 3,", "replicas: 60,", 1), "{ dbPass: staging-pw-0001 }", "{ size: huge, dbPass: staging-pw-0001 }", 1))
	code, _, errOut := k.run("", "validate")
	path := filepath.Join(k.dir, "kyku.yaml")
	wantErr := path + `:9:24: variable "size" in environment "staging": "huge" is not one of small, medium, large
` + path + `:11:41: variable "replicas" in environment "prod": 60 is above the maximum 50
kyku: 2 errors
`
	if code != 1 || errOut != wantErr {
		t.Errorf("validate: exit %d\n%s\nwant:\n%s", code, errOut, wantErr)
	}
	code, _, errOut = k.run("", "validate", "-e", "staging")
	if code != 1 || strings.Contains(errOut, "prod") || !strings.HasSuffix(errOut, "kyku: 1 error\n") {
		t.Errorf("validate -e staging: exit %d\n%s", code, errOut)
	}
	code, _, errOut = k.run("", "plan", "-e", "qa")
	if code != 1 || !strings.Contains(errOut, `environment "qa" is not declared under environments (declared: prod, staging)`) {
		t.Errorf("plan -e qa: exit %d\n%s", code, errOut)
	}
	code, _, errOut = k.run("", "plan", "-e", "prod", "--var", "dbPass")
	if code != 1 || !strings.Contains(errOut, `want --var name=value, got "dbPass"`) {
		t.Errorf("--var without =: exit %d\n%s", code, errOut)
	}
}

func TestSensitiveVariableMaskedInJSONAndSavedArtifacts(t *testing.T) {
	k := newKyku(t, envConfig)
	out := k.ok("plan", "-e", "prod", "--json")
	if strings.Contains(out, "pw-000") {
		t.Errorf("plan --json shows the sensitive value:\n%s", out)
	}
	var doc struct {
		Changes []struct {
			ResourceID string `json:"resourceId"`
			Properties []struct {
				Path      string `json:"path"`
				New       any    `json:"new"`
				Sensitive bool   `json:"sensitive"`
			} `json:"properties"`
		} `json:"changes"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	masked := 0
	for _, c := range doc.Changes {
		for _, p := range c.Properties {
			if c.ResourceID == "web[0]" && (p.Path == "tags" || p.Path == "userData") {
				if !p.Sensitive || p.New != "(sensitive)" {
					t.Errorf("%s %s = %v (sensitive %v)", c.ResourceID, p.Path, p.New, p.Sensitive)
				}
				masked++
			}
		}
	}
	if masked != 2 {
		t.Errorf("%d masked properties of web[0], want tags and userData", masked)
	}
	out = k.ok("plan", "-e", "prod", "--format", "mermaid")
	if strings.Contains(out, "pw-000") {
		t.Errorf("the picture shows the sensitive value")
	}
}

// TestEnvironmentsExample applies examples/environments (docs/language.md's
// example) to both of its environments side by side.
func TestEnvironmentsExample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "environments", "kyku.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	k := newKyku(t, string(data))
	k.env["KYKU_VAR_dbPass"] = "correct-horse-battery"
	// validate and plan count alike: every instance (web[0..2], edge["a"]
	// and edge["b"]) and the Vpc's 2 auto-subnets, and both say so.
	const what = "(count and forEach instances and 2 auto-subnets included)"
	if out := k.ok("validate"); !strings.Contains(out, "environment prod: 9 resources "+what) || !strings.Contains(out, "environment staging: 6 resources "+what) {
		t.Errorf("validate:\n%s", out)
	}
	for env, n := range map[string]string{"prod": "9", "staging": "6"} {
		if out := k.ok("plan", "-e", env); !strings.Contains(out, "Plan: "+n+" to create,") || !strings.Contains(out, "The configuration has "+n+" resources "+what+", counted as kyku validate counts them.") {
			t.Errorf("plan -e %s does not count %s resources as validate does:\n%s", env, n, out)
		}
	}
	k.ok("apply", "-e", "staging", "--auto-approve")
	out := k.ok("apply", "-e", "prod", "--auto-approve")
	if strings.Contains(out, "correct-horse-battery") {
		t.Errorf("apply shows the password:\n%s", out)
	}
	vms := map[string]int{}
	for _, o := range k.cloud() {
		if o.Type == "Vm" {
			vms[o.Properties["size"].(string)]++
		}
	}
	if vms["small"] != 1 || vms["large"] != 3 {
		t.Errorf("Vms by size: %v, want 1 small (staging) and 3 large (prod)", vms)
	}
	if got := k.state("prod").Resources["web-tg"].Config["targets"]; len(got.([]any)) != 3 {
		t.Errorf("prod web-tg targets = %v", got)
	}
	delete(k.env, "KYKU_VAR_dbPass")
	code, _, errOut := k.run("", "validate")
	if code != 1 || strings.Count(errOut, `variable "dbPass" has no value`) != 2 {
		t.Errorf("validate without the password: exit %d\n%s", code, errOut)
	}
	k.env["KYKU_VAR_dbPass"] = "short"
	code, _, errOut = k.run("", "validate", "-e", "prod")
	if code != 1 || !strings.Contains(errOut, `variable "dbPass": KYKU_VAR_dbPass: the value (sensitive) has fewer than 12 characters`) || strings.Contains(errOut, "short") {
		t.Errorf("validate with a short password: exit %d\n%s", code, errOut)
	}
}

// A saved plan carries its moves and imports: applying it exactly renames
// and adopts, creating and destroying nothing.
func TestSavedPlanWithMovesAndImports(t *testing.T) {
	k := newKyku(t, "provider: sim\nresources:\n  old: { type: SshKey, properties: { publicKey: k } }\n")
	k.ok("apply", "--auto-approve")
	id := k.state("").Resources["old"].ProviderID
	s, _ := sim.New(sim.Options{Dir: filepath.Join(k.dir, "cloud")})
	obj, err := s.Create(t.Context(), provider.Resource{Name: "x", Type: "SshKey", CloudName: "outside", Properties: map[string]any{"publicKey": "k2"}})
	if err != nil {
		t.Fatal(err)
	}
	k.write(`provider: sim
resources:
  keys: { type: SshKey, forEach: [a], properties: { publicKey: k } }
  adopted: { type: SshKey, properties: { publicKey: k2 } }
moved:
  - { from: old, to: "keys[a]" }
import:
  - { to: adopted, id: "` + obj.ID + `" }
`)
	planFile := filepath.Join(k.dir, "plan.json")
	out := k.ok("plan", "--out", planFile)
	if !strings.Contains(out, "1 to move, 1 to import") {
		t.Errorf("plan:\n%s", out)
	}
	out = k.ok("apply", "--plan", planFile, "--auto-approve")
	if !strings.Contains(out, "Apply complete: 2 succeeded") {
		t.Errorf("apply:\n%s", out)
	}
	st := k.state("")
	if st.Resources[`keys["a"]`].ProviderID != id || st.Resources["adopted"].ProviderID != obj.ID || len(st.Resources) != 2 {
		t.Errorf("state: %v", st.Names())
	}
	if n := len(k.cloud()); n != 2 {
		t.Errorf("%d objects in the cloud, want the 2 there were", n)
	}
}
