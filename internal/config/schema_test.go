package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/envname"
	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/schemacheck"
	"github.com/kyku/action/internal/value"
)

// kyku.schema.json is held to the loader three ways: what loads
// validates (TestSchemaAcceptsWhatLoads), what the loader refuses for a
// reason a schema can state the schema refuses too (TestSchemaRefuses,
// TestSchemaRefusesFixtureErrors), and its keys, enums and resource types
// are the loader's declarations (TestSchemaKeysAreTheLoaders).

func compiledSchema(t *testing.T) *schemacheck.Schema {
	t.Helper()
	s, err := schemacheck.Compile(JSONSchema())
	if err != nil {
		t.Fatalf("kyku.schema.json: %v", err)
	}
	return s
}

// schemaErrors validates data against the schema: every error as
// "path: message" with the lines it points at.
func schemaErrors(t *testing.T, s *schemacheck.Schema, data []byte) ([]schemacheck.Error, yamlDoc) {
	t.Helper()
	doc, err := readYAMLDoc(t, data)
	if err != nil {
		t.Fatalf("read YAML: %v", err)
	}
	return s.Validate(doc.value), doc
}

// validConfigs are the configurations of the repository that load: every
// example and every fixture that is not an error fixture.
func validConfigs(t *testing.T) map[string]Inputs {
	t.Helper()
	configs := map[string]Inputs{
		filepath.Join("testdata", "quickstart.yaml"): {},
		filepath.Join("testdata", "split"):           {},
	}
	examples, err := filepath.Glob(filepath.Join("..", "..", "examples", "*", "kyku.yaml"))
	if err != nil || len(examples) < 5 {
		t.Fatalf("examples: %v %v", examples, err)
	}
	for _, ex := range examples {
		configs[ex] = Inputs{}
	}
	// Its database password has no default: it is given outside the files.
	configs[filepath.Join("..", "..", "examples", "environments", "kyku.yaml")] = Inputs{Vars: map[string]string{"dbPass": "example-secret"}}
	return configs
}

// TestSchemaAcceptsWhatLoads: every configuration of the repository that
// the loader loads validates against the schema, file by file.
func TestSchemaAcceptsWhatLoads(t *testing.T) {
	s := compiledSchema(t)
	for path, in := range validConfigs(t) {
		t.Run(path, func(t *testing.T) {
			if _, err := LoadEnv(path, in); err != nil {
				t.Fatalf("does not load: %v", err)
			}
			files, err := ReadFiles(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				errs, _ := schemaErrors(t, s, f.Data)
				for _, e := range errs {
					for _, r := range e.All() {
						t.Errorf("%s: the schema refuses what loads: %s", f.Name, r)
					}
				}
			}
		})
	}
}

// TestSchemaRefuses: configurations the loader refuses for a reason a
// schema can state (an unknown key, a wrong type, a bad enum, a missing
// required key, a bad name) are refused by both, each for that reason.
func TestSchemaRefuses(t *testing.T) {
	s := compiledSchema(t)
	const vpc = "resources:\n  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }\n"
	for _, tc := range []struct {
		name, yaml, loader, schema string
	}{
		{"unknown top-level key", "resourcs: {}\n", `unknown key "resourcs"`, `unknown key "resourcs"`},
		{"unknown resource key", "resources:\n  net: { type: Vpc, protected: true, properties: { cidr: 10.0.0.0/16 } }\n", `unknown key "protected"`, `unknown key "protected"`},
		{"unknown property", "resources:\n  net: { type: Vpc, properties: { cidr: 10.0.0.0/16, zone: a } }\n", `unknown property "zone"`, `unknown key "zone"`},
		{"unknown rule field", vpc + "  sg: { type: SecurityGroup, properties: { network: \"${net}\", ingress: [ { cidr: 0.0.0.0/0, ports: 80 } ] } }\n", `unknown field "ports"`, `unknown key "ports"`},
		{"unknown backend key", "backend: { type: s3, bucket: b, bukcet: c }\n", `unknown key "bukcet"`, `key "bukcet"`},
		{"backend key of another type", "backend: { type: local, bucket: b }\n", `"bucket" applies only to`, `key "bucket"`},
		{"unknown encryption key", "encryption: { key: passphrase, salt: x }\n", `unknown key "salt"`, `unknown key "salt"`},
		{"unknown variable key", "variables:\n  size: { type: string, defualt: small }\n", `unknown key "defualt"`, `unknown key "defualt"`},
		{"unknown environment key", "environments:\n  prod: { vars: {} }\n", `unknown key "vars"`, `unknown key "vars"`},
		{"unknown output key", "outputs:\n  ip: { value: x, sensitve: true }\n", `unknown key "sensitve"`, `unknown key "sensitve"`},
		{"unknown moved key", vpc + "moved:\n  - { from: old, to: net, also: x }\n", `unknown key "also"`, `unknown key "also"`},
		{"unknown provider key", "providers:\n  null: { source: hashicorp/null, versoin: \"3.3.1\" }\n", `unknown key "versoin"`, `unknown key "versoin"`},
		{"data source key of resources only", "providers:\n  null: { source: hashicorp/null }\ndata:\n  d: { type: null_data_source, protect: true }\n", `unknown key "protect"`, `unknown key "protect"`},
		{"integer as text", "resources:\n  db: { type: Database, properties: { engine: postgres, storageGb: \"20\" } }\n", `storageGb: expected integer, got string "20"`, `expected integer, got string "20"`},
		{"text as integer", "resources:\n  db: { type: Database, properties: { engine: postgres, version: 14 } }\n", `version: expected string, got integer 14`, `expected string, got integer 14`},
		{"fraction as integer", "resources:\n  net: { type: Vpc, properties: { cidr: 10.0.0.0/16, distributeAcrossAzs: 1.5 } }\n", `expected integer, got number 1.5`, `expected integer, got number 1.5`},
		{"text as boolean", "resources:\n  net: { type: Vpc, protect: \"yes\", properties: { cidr: 10.0.0.0/16 } }\n", `protect: expected boolean`, `expected boolean, got string "yes"`},
		{"number as tag", "resources:\n  net: { type: Vpc, properties: { cidr: 10.0.0.0/16, tags: { team: 42 } } }\n", `tags.team: expected string, got integer 42`, `expected string, got integer 42`},
		{"list as text", "resources:\n  key: { type: SshKey, properties: { publicKey: [a] } }\n", `publicKey: expected string, got list`, `expected string, got array`},
		{"bad engine", "resources:\n  db: { type: Database, properties: { engine: oracle } }\n", `"oracle" is not one of postgres, mysql, mariadb`, `"oracle" is not one of`},
		{"bad rule protocol", vpc + "  sg: { type: SecurityGroup, properties: { network: \"${net}\", ingress: [ { cidr: 0.0.0.0/0, protocol: sctp } ] } }\n", `"sctp" is not one of tcp, udp, icmp, all`, `"sctp" is not one of`},
		{"bad backend type", "backend: { type: gsc }\n", `unknown backend "gsc"`, `"gsc" is not one of`},
		{"bad encryption kind", "encryption: { key: passfrase }\n", `unknown key kind "passfrase"`, `"passfrase" is not one of`},
		{"bad variable type", "variables:\n  size: { type: text }\n", `unknown type "text"`, `"text" is not one of`},
		{"unknown resource type", "resources:\n  web: { type: VM, properties: {} }\n", `unknown type "VM"`, `"VM" matches none`},
		{"no reference", vpc + "  sg: { type: SecurityGroup, properties: { network: net } }\n", `expected a reference to a Vpc`, `"net" does not match`},
		{"resource without type", "resources:\n  web: { properties: {} }\n", `missing "type"`, `missing required key "type"`},
		{"missing required property", "resources:\n  web: { type: Vm, properties: { size: small } }\n", `missing required property "image"`, `missing required key "image"`},
		{"missing required field", vpc + "  sg: { type: SecurityGroup, properties: { network: \"${net}\", ingress: [ { port: 22 } ] } }\n", `missing required field "cidr"`, `missing required key "cidr"`},
		{"provider without name", "provider: { region: eu-west-1 }\n", `missing "name"`, `missing required key "name"`},
		{"plugin provider without source", "providers:\n  null: { version: \"3.3.1\" }\n", `missing "source"`, `missing required key "source"`},
		{"moved without to", vpc + "moved:\n  - { from: old }\n", `moved entry needs "to"`, `missing required key "to"`},
		{"import without id", vpc + "import:\n  - { to: net }\n", `import entry needs "id"`, `missing required key "id"`},
		{"encryption without key", "encryption: { keyId: x }\n", `missing "key"`, `missing required key "key"`},
		{"variable without type", "variables:\n  size: { default: small }\n", `missing "type"`, `missing required key "type"`},
		{"s3 without bucket", "backend: { type: s3, region: eu-west-1 }\n", `type s3 needs a "bucket"`, `missing required key "bucket"`},
		{"http without address", "backend: { type: http, username: u }\n", `type http needs an "address"`, `missing required key "address"`},
		{"spaces without region", "backend: { type: spaces, bucket: b }\n", `type spaces needs a "region"`, `missing required key "region"`},
		{"unlock without lock", "backend: { type: http, address: \"https://s.example/x\", unlockAddress: \"https://s.example/u\" }\n", `"unlockAddress" without "lockAddress"`, `missing required key "lockAddress"`},
		{"aws-kms without keyId", "encryption: { key: aws-kms }\n", `aws-kms needs a "keyId"`, `missing required key "keyId"`},
		{"passphrase with keyId", "encryption: { key: passphrase, keyId: k }\n", `key passphrase takes no keyId`, `must not match`},
		{"fallback of a fallback", "encryption: { key: passphrase, fallback: { key: passphrase, fallback: { key: passphrase } } }\n", `a fallback has no fallback`, `unknown key "fallback"`},
		{"negative retention", "backend: { type: local, backupRetention: -1 }\n", `must be 0 (keep all) or more`, `less than the minimum 0`},
		{"endpoint not a URL", "backend: { type: s3, bucket: b, endpoint: minio:9000 }\n", `is not an http:// or https:// URL`, `does not match`},
		{"method not a method", "backend: { type: http, address: \"https://s.example/x\", lockMethod: lock }\n", `is not an HTTP method`, `does not match`},
		{"bad resource name", "resources:\n  web server: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }\n", `resource name "web server" is invalid`, `key "web server"`},
		{"reserved resource name", "resources:\n  var: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }\n", `resource name "var" is reserved`, `key "var"`},
		{"bad environment name", "environments:\n  eu.west: {}\n", `environment name "eu.west" is invalid`, `key "eu.west"`},
		{"bad variable name", "variables:\n  db-pass: { type: string }\n", `variable name "db-pass" is invalid`, `key "db-pass"`},
		{"bad provider name", "providers:\n  Nul: { source: hashicorp/null }\n", `provider name "Nul" is invalid`, `key "Nul"`},
		{"bad provider source", "providers:\n  nul: { source: hashicorp }\n", `source "hashicorp" is not`, `"hashicorp" does not match`},
		{"bad output name", "outputs:\n  \"-ip\": x\n", `output name "-ip" is invalid`, `key "-ip"`},
		{"negative count", "resources:\n  net: { type: Vpc, count: -1, properties: { cidr: 10.0.0.0/16 } }\n", `count must not be negative`, `less than the minimum 0`},
		{"count and forEach", "resources:\n  net: { type: Vpc, count: 1, forEach: [a], properties: { cidr: 10.0.0.0/16 } }\n", `count and forEach cannot be used together`, `/resources/net/forEach: no value is allowed here`},
		{"too many instances", "resources:\n  net: { type: Vpc, count: 10001, properties: { cidr: 10.0.0.0/16 } }\n", `count 10001 is more than 10000 instances`, `more than the maximum 10000`},
		{"bad forEach key", "resources:\n  net: { type: Vpc, forEach: [\"a b\"], properties: { cidr: 10.0.0.0/16 } }\n", `forEach key "a b" is invalid`, `"a b" does not match`},
		{"min of a bool", "variables:\n  on: { type: bool, min: 1 }\n", `min does not apply to a bool`, `must not match`},
		{"pattern of a number", "variables:\n  n: { type: number, pattern: \"[0-9]+\" }\n", `pattern applies to a string`, `"number" is not "string"`},
		{"ignoreChanges of no property", "resources:\n  net: { type: Vpc, ignoreChanges: [size], properties: { cidr: 10.0.0.0/16 } }\n", `Vpc has no property "size"`, `"size" is not one of`},
		{"empty import id", vpc + "import:\n  - { to: net, id: \"\" }\n", `the provider ID is empty`, `"" does not match`},
		{"null default", "variables:\n  size: { type: string, default: }\n", `default is empty`, `expected string or number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := diagnostics(t, File{Name: "kyku.yaml", Data: []byte(tc.yaml)})
			if !strings.Contains(ds.Error(), tc.loader) {
				t.Errorf("the loader does not refuse it with %q:\n%v", tc.loader, ds)
			}
			errs, _ := schemaErrors(t, s, []byte(tc.yaml))
			var msgs []string
			for _, e := range errs {
				for _, r := range e.All() {
					msgs = append(msgs, r.String())
				}
			}
			if !strings.Contains(strings.Join(msgs, "\n"), tc.schema) {
				t.Errorf("the schema does not refuse it with %q:\n%s", tc.schema, strings.Join(msgs, "\n"))
			}
		})
	}
}

// structuralError matches the messages of the loader that a schema can
// state: every fixture line announcing one, the schema refuses too (a
// message about a sensitive value is left out: the schema sees the
// reference, not the value).
var structuralError = regexp.MustCompile(`unknown key |unknown property|unknown field|expected (integer|boolean|string|list|mapping|number|provider ID)|expected a reference to a \w+ like "\$\{name\}", got "|missing required|missing "(type|source|name|key)"|needs "(to|from|id)"|is not one of|unknown backend|unknown key kind|unknown type "[A-Z]|applies only to|needs an? "(bucket|address|region|keyId)"|must be 0|name "[^"]*" is (invalid|reserved)|count must not be negative|count \d+ is more than|forEach key .* is invalid|does not apply to a bool|pattern applies to|cannot be used together`)

// TestSchemaRefusesFixtureErrors: on every line of testdata/errors where
// the loader announces an error the schema can state, the schema reports
// one; and it reports none on a line where the loader reports nothing.
func TestSchemaRefusesFixtureErrors(t *testing.T) {
	s := compiledSchema(t)
	paths, err := filepath.Glob(filepath.Join("testdata", "errors", "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	checked := 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := readYAMLDoc(t, data)
		if err != nil {
			continue // a syntax error: no document to validate
		}
		announced := map[int]bool{}
		structural := map[int]string{}
		for i, line := range strings.Split(string(data), "\n") {
			written, _, _ := strings.Cut(line, "#")
			for _, msg := range strings.Split(line, "# ERROR: ")[1:] {
				announced[i+1] = true
				// The schema sees a reference, not the value it stands
				// for, nor a sensitive one.
				if structuralError.MatchString(msg) && !strings.Contains(line, "(sensitive)") && !strings.Contains(written, "${") && !sameValueRule.MatchString(msg) {
					structural[i+1] = msg
				}
			}
		}
		errs := s.Validate(doc.value)
		var all []schemacheck.Error
		for _, e := range errs {
			all = append(all, e.All()...)
		}
		for line, msg := range structural {
			checked++
			if !slices.ContainsFunc(all, func(e schemacheck.Error) bool { return slices.Contains(errorLines(doc, e), line) }) {
				t.Errorf("%s:%d: the loader says %q; the schema says nothing", path, line, msg)
			}
		}
		// An error is the loader's too when it, or one of its reasons
		// (the alternatives it matches none of), is on an announced line.
		for _, e := range errs {
			if !slices.ContainsFunc(e.All(), func(r schemacheck.Error) bool {
				return slices.ContainsFunc(errorLines(doc, r), func(line int) bool { return announced[line] })
			}) {
				t.Errorf("%s:%v: the schema refuses what the loader accepts: %s", path, errorLines(doc, e), e)
			}
		}
	}
	if checked < 40 {
		t.Errorf("only %d announced errors checked against the schema", checked)
	}
}

// sameValueRule matches the loader's messages that compare two values of
// one declaration (a variable's default against its allowed values): no
// schema states them.
var sameValueRule = regexp.MustCompile(`: default `)

// errorLines are the lines a schema error points at: the key and the value
// at its path and, for a property missing from a resource's properties,
// the resource's (the loader names the resource that lacks it).
func errorLines(doc yamlDoc, e schemacheck.Error) []int {
	lines := doc.lines[e.Path]
	if strings.HasPrefix(e.Msg, "missing required key") && strings.HasSuffix(e.Path, "/properties") {
		if i := strings.LastIndex(e.Path, "/"); i >= 0 {
			lines = append(slices.Clone(lines), doc.lines[e.Path[:i]]...)
		}
	}
	return lines
}

// TestSchemaKeysAreTheLoaders: every mapping the loader reads has, in the
// schema, exactly the keys the loader takes, and every enum the loader's
// values: a key added to one and not the other fails here.
func TestSchemaKeysAreTheLoaders(t *testing.T) {
	var root map[string]any
	if err := json.Unmarshal(JSONSchema(), &root); err != nil {
		t.Fatal(err)
	}
	at := func(path string) any {
		var node any = root
		for _, part := range strings.Split(path, "/") {
			switch n := node.(type) {
			case map[string]any:
				node = n[part]
			case []any:
				i := int(part[0] - '0')
				if i < len(n) {
					node = n[i]
				} else {
					node = nil
				}
			default:
				node = nil
			}
		}
		if node == nil {
			t.Fatalf("kyku.schema.json has no %s", path)
		}
		return node
	}
	keys := func(path string) []string {
		m, _ := at(path).(map[string]any)
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	strs := func(path string) []string {
		var out []string
		for _, v := range at(path).([]any) {
			out = append(out, v.(string))
		}
		slices.Sort(out)
		return out
	}
	sorted := func(s []string) []string { return slices.Sorted(slices.Values(s)) }
	without := func(s []string, drop string) []string {
		return slices.DeleteFunc(slices.Clone(s), func(x string) bool { return x == drop })
	}
	for _, tc := range []struct {
		what   string
		schema []string
		loader []string
	}{
		{"top-level keys", keys("properties"), topKeys},
		{"resource keys", keys("$defs/resource/properties"), resourceKeys},
		{"data source keys", keys("$defs/dataSource/properties"), dataKeys},
		{"output keys (long form)", keys("$defs/output/then/properties"), outputKeys},
		{"variable keys", keys("$defs/variable/properties"), varKeys},
		{"variable types", strs("$defs/variable/properties/type/enum"), varTypeNames[:]},
		{"environment keys", keys("properties/environments/additionalProperties/properties"), envKeys},
		{"moved keys", keys("properties/moved/items/properties"), movedKeys},
		{"moved required", strs("properties/moved/items/required"), movedKeys},
		{"import keys", keys("properties/import/items/properties"), importKeys},
		{"import required", strs("properties/import/items/required"), importKeys},
		{"provider plugin keys", keys("$defs/pluginProvider/properties"), providerKeys},
		{"encryption keys", keys("properties/encryption/properties"), encryptionKeys},
		{"encryption fallback keys", keys("$defs/encryptionFallback/properties"), without(encryptionKeys, "fallback")},
		{"encryption kinds", strs("properties/encryption/properties/key/enum"), encryptionKinds},
		{"backend keys", keys("properties/backend/anyOf/1/properties"), allBackendKeys()},
		{"backend types", strs("properties/backend/anyOf/1/properties/type/enum"), backendTypeNames()},
		{"resource types", strs("$defs/resource/properties/type/anyOf/0/enum"), schema.Names()},
		{"reserved names", strs("properties/resources/propertyNames/not/enum"), reserved},
	} {
		if diff := cmp.Diff(sorted(tc.loader), tc.schema); diff != "" {
			t.Errorf("%s: the schema differs from the loader (-loader +schema):\n%s", tc.what, diff)
		}
	}
	// Each backend type takes its own keys.
	for i, rule := range at("properties/backend/anyOf/1/allOf").([]any) {
		ifc := rule.(map[string]any)["if"].(map[string]any)
		typ, _ := json.Marshal(ifc)
		then := rule.(map[string]any)["then"].(map[string]any)
		names, ok := then["propertyNames"].(map[string]any)
		if !ok {
			continue // a rule between keys
		}
		var got []string
		for _, v := range names["enum"].([]any) {
			got = append(got, v.(string))
		}
		found := false
		for bt, want := range backendTypes() {
			if strings.Contains(string(typ), `"const":"`+bt+`"`) {
				found = true
				if diff := cmp.Diff(sorted(append([]string{"type"}, want...)), sorted(got)); diff != "" {
					t.Errorf("backend type %s: keys differ (-loader +schema):\n%s", bt, diff)
				}
			}
		}
		if !found {
			t.Errorf("backend allOf[%d] names no backend type: %s", i, typ)
		}
	}
	if got := at("properties/backend/anyOf/1/allOf").([]any); len(got) != len(backendTypes())+1 {
		t.Errorf("backend allOf has %d rules, want one per type and the lock rule", len(got))
	}
	if got := at("$defs/resource/properties/count/anyOf/0/maximum"); got != float64(MaxInstances) {
		t.Errorf("count maximum %v, want %d", got, MaxInstances)
	}
	for path, want := range map[string]string{
		"$defs/resource/properties/forEach/anyOf/0/items/pattern":         fmt.Sprintf("^[A-Za-z0-9_-]{1,%d}$", value.MaxKeyLen),
		"$defs/resource/properties/forEach/anyOf/1/propertyNames/pattern": fmt.Sprintf("^[A-Za-z0-9_-]{1,%d}$", value.MaxKeyLen),
		"properties/environments/propertyNames/pattern":                   fmt.Sprintf("^[A-Za-z0-9_][A-Za-z0-9_-]{0,%d}$", envname.MaxLen-1),
		"properties/resources/propertyNames/pattern":                      nameRE().String(),
		"properties/outputs/propertyNames/pattern":                        nameRE().String(),
		"properties/variables/propertyNames/pattern":                      varNameRE().String(),
	} {
		if got := at(path); got != want {
			t.Errorf("%s is %q, want the loader's %q", path, got, want)
		}
	}
	// Kyku's resource types: their properties, kinds, required ones,
	// enums and defaults are package schema's.
	for _, name := range schema.Names() {
		typ, _ := schema.Lookup(name)
		if diff := cmp.Diff(roundTrip(t, typeDefShape(typ)), stripAnnotations(at("$defs/"+name))); diff != "" {
			want, _ := json.MarshalIndent(typeDefShape(typ), "", "  ")
			t.Errorf("$defs/%s differs from package schema (-schema package +kyku.schema.json):\n%s\nwant (annotations aside):\n%s", name, diff, want)
		}
	}
	allOf := at("$defs/resource/allOf").([]any)
	if diff := cmp.Diff(roundTrip(t, typeSwitchShape()), stripAnnotations(allOf[1:])); diff != "" {
		t.Errorf("$defs/resource/allOf differs from package schema's types (-want +got):\n%s", diff)
	}
}

// roundTrip is v as encoding/json reads it back.
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// stripAnnotations is v without the keywords that say nothing the
// loader checks.
func stripAnnotations(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			switch k {
			case "title", "description", "markdownDescription", "examples", "$comment":
				continue
			}
			if k == "properties" {
				// Property names are data, not keywords.
				props := map[string]any{}
				for name, p := range e.(map[string]any) {
					props[name] = stripAnnotations(p)
				}
				out[k] = props
				continue
			}
			out[k] = stripAnnotations(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = stripAnnotations(e)
		}
		return out
	}
	return v
}
