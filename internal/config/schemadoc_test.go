package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// docs/configuration.md's kyku.yaml reference is generated from
// kyku.schema.json (its keys in the order written, their types, defaults,
// descriptions and examples): a schema changed without regenerating the
// page fails TestConfigurationReference; go test ./internal/config -run
// 'TestConfigurationReference|TestSchemaCopy' -update rewrites it and
// docs/kyku.schema.json.

var (
	configurationPage = filepath.Join("..", "..", "docs", "configuration.md")
	schemaCopy        = filepath.Join("..", "..", "docs", "kyku.schema.json")
)

const (
	referenceBegin = "<!-- BEGIN kyku.yaml reference: generated from internal/config/kyku.schema.json by TestConfigurationReference; do not edit. -->\n"
	referenceEnd   = "<!-- END kyku.yaml reference -->\n"
)

// TestSchemaCopy: docs/kyku.schema.json, the copy editors are pointed at
// (examples/quickstart names it), is the schema kyku schema prints.
func TestSchemaCopy(t *testing.T) {
	if *update {
		if err := os.WriteFile(schemaCopy, JSONSchema(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(schemaCopy)
	if err != nil {
		t.Fatalf("read %s (run with -update to write it): %v", schemaCopy, err)
	}
	if !bytes.Equal(got, JSONSchema()) {
		t.Errorf("%s differs from internal/config/kyku.schema.json; copy it: go test ./internal/config -run TestSchemaCopy -update", schemaCopy)
	}
}

// TestQuickstartNamesTheSchema: the quick start's kyku.yaml tells
// yaml-language-server (VS Code, JetBrains, Neovim) where its schema is,
// and the path it names is the copy in docs/.
func TestQuickstartNamesTheSchema(t *testing.T) {
	path := filepath.Join("..", "..", "examples", "quickstart", "kyku.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	ref, ok := strings.CutPrefix(first, "# yaml-language-server: $schema=")
	if !ok {
		t.Fatalf("%s: the first line is %q, not a yaml-language-server $schema line", path, first)
	}
	named, err := filepath.Abs(filepath.Join(filepath.Dir(path), filepath.FromSlash(ref)))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.Abs(schemaCopy)
	if named != want {
		t.Errorf("%s names %s, want %s", path, named, want)
	}
}

// schemaNode is kyku.schema.json as YAML nodes: keys in the order written.
func schemaNode(t *testing.T) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(JSONSchema(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

// get is the value of key in mapping n, or nil.
func get(n *yaml.Node, path ...string) *yaml.Node {
	for _, key := range path {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

// keysOf are the keys of mapping n, in order.
func keysOf(n *yaml.Node) []string {
	var out []string
	if n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			out = append(out, n.Content[i].Value)
		}
	}
	return out
}

// texts are the scalars of sequence n.
func texts(n *yaml.Node) []string {
	var out []string
	if n != nil {
		for _, e := range n.Content {
			out = append(out, e.Value)
		}
	}
	return out
}

// exampleDoc is the top-level examples of the schema as one document, in
// the schema's order.
func exampleDoc(t *testing.T, root *yaml.Node) *yaml.Node {
	t.Helper()
	doc := &yaml.Node{Kind: yaml.MappingNode}
	props := get(root, "properties")
	for _, key := range keysOf(props) {
		ex := get(props, key, "examples")
		if ex == nil || len(ex.Content) == 0 {
			t.Errorf("kyku.schema.json: top-level key %q has no example", key)
			continue
		}
		doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, blockStyle(ex.Content[0]))
	}
	return doc
}

// blockStyle is a copy of n written as YAML writes it, not as JSON.
func blockStyle(n *yaml.Node) *yaml.Node {
	c := *n
	c.Style = 0
	c.Content = nil
	for _, e := range n.Content {
		c.Content = append(c.Content, blockStyle(e))
	}
	// Short lists and mappings of scalars read best on one line.
	if (c.Kind == yaml.SequenceNode || c.Kind == yaml.MappingNode) && len(c.Content) <= 4 && !slices.ContainsFunc(c.Content, func(e *yaml.Node) bool { return e.Kind != yaml.ScalarNode }) {
		c.Style = yaml.FlowStyle
	}
	return &c
}

func marshalYAML(t *testing.T, n *yaml.Node) string {
	t.Helper()
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSchemaExamples: the schema's examples, one per top-level key, are
// together one configuration that validates and loads (in every
// environment it declares).
func TestSchemaExamples(t *testing.T) {
	doc := marshalYAML(t, exampleDoc(t, schemaNode(t)))
	errs, _ := schemaErrors(t, compiledSchema(t), []byte(doc))
	for _, e := range errs {
		for _, r := range e.All() {
			t.Errorf("the schema refuses its own example: %s", r)
		}
	}
	if _, err := ParseEach([]File{{Name: "kyku.yaml", Data: []byte(doc)}}, Inputs{}); err != nil {
		t.Errorf("the schema's example does not load: %v\n%s", err, doc)
	}
}

// TestConfigurationReference: the kyku.yaml part of docs/configuration.md
// is what kyku.schema.json says.
func TestConfigurationReference(t *testing.T) {
	page, err := os.ReadFile(configurationPage)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(page), referenceBegin)
	_, after, ok2 := strings.Cut(rest, referenceEnd)
	if !ok || !ok2 {
		t.Fatalf("%s has no %q … %q", configurationPage, referenceBegin, referenceEnd)
	}
	got := before + referenceBegin + renderReference(t, schemaNode(t)) + referenceEnd + after
	if *update {
		if err := os.WriteFile(configurationPage, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(string(page), got); diff != "" {
		t.Errorf("%s is stale (-page +schema); regenerate it: go test ./internal/config -run TestConfigurationReference -update\n%s", configurationPage, diff)
	}
}

// renderReference writes the reference of every key of kyku.yaml.
func renderReference(t *testing.T, root *yaml.Node) string {
	t.Helper()
	var b strings.Builder
	props := get(root, "properties")
	b.WriteString("\n| Key | What it holds |\n|---|---|\n")
	for _, key := range keysOf(props) {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s |\n", key, key, cell(firstSentence(get(props, key, "description").Value)))
	}
	for _, key := range keysOf(props) {
		n := get(props, key)
		fmt.Fprintf(&b, "\n### %s\n\n%s\n\n", key, get(n, "description").Value)
		fmt.Fprintf(&b, "Type: %s.", typeText(root, n))
		if d := get(n, "default"); d != nil {
			fmt.Fprintf(&b, " Default: `%s`.", d.Value)
		}
		b.WriteString("\n")
		b.WriteString(renderSection(t, root, key, n))
		ex := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: key}, blockStyle(get(n, "examples").Content[0])}}
		fmt.Fprintf(&b, "\nExample:\n\n```yaml\n%s```\n", marshalYAML(t, ex))
	}
	b.WriteString("\n### Resource types\n\nKyku's own types, the same on every provider (sim, aws, hetzner); each provider says what its cloud cannot change in place. A reference is written `\"${name}\"` and names a resource of the type the meaning says. Where a number, a boolean, a list or a mapping is expected, a whole reference (`\"${var.replicas}\"`, `\"${web[*]}\"`) may stand in for it; a property left empty (`size:`) is unset.\n")
	for _, name := range texts(get(get(root, "$defs", "resource", "properties", "type", "anyOf").Content[0], "enum")) {
		def := get(root, "$defs", name)
		fmt.Fprintf(&b, "\n#### %s\n\n%s\n\n", name, strings.TrimPrefix(get(def, "description").Value, "The properties of a "+name+": "))
		b.WriteString(keyTable(root, "", def))
	}
	b.WriteString("\n### A complete example\n\nEvery example above, together: a configuration that loads (the test of the schema loads it).\n\n```yaml\n")
	b.WriteString(marshalYAML(t, exampleDoc(t, root)))
	b.WriteString("```\n\n")
	return b.String()
}

// renderSection is what a top-level key holds, key by key.
func renderSection(t *testing.T, root *yaml.Node, key string, n *yaml.Node) string {
	t.Helper()
	switch key {
	case "provider":
		obj := get(n, "anyOf").Content[1]
		var b strings.Builder
		b.WriteString("\n" + keyTable(root, "", obj))
		b.WriteString("\nSettings, beside `name`, by provider (any other is refused by the sim and Hetzner when the provider starts):\n\n| Provider | Setting | Meaning |\n|---|---|---|\n")
		for _, rule := range get(obj, "allOf").Content {
			name := get(rule, "if", "properties", "name", "const").Value
			settings := get(rule, "then", "properties")
			for _, s := range keysOf(settings) {
				fmt.Fprintf(&b, "| %s | `%s` | %s |\n", name, s, cell(get(settings, s, "description").Value))
			}
		}
		return b.String()
	case "backend":
		obj := get(n, "anyOf").Content[1]
		var b strings.Builder
		b.WriteString("\n" + keyTable(root, "", obj))
		b.WriteString("\nThe keys each type takes (any other is refused, naming the types it belongs to):\n\n| Type | Keys | Required |\n|---|---|---|\n")
		for _, rule := range get(obj, "allOf").Content {
			names := get(rule, "then", "propertyNames", "enum")
			if names == nil {
				continue
			}
			typ := get(rule, "if", "properties", "type", "const")
			if typ == nil {
				typ = get(rule, "if", "anyOf").Content[0]
				typ = get(typ, "properties", "type", "const")
			}
			req := texts(get(rule, "then", "required"))
			if alt := get(rule, "then", "anyOf"); alt != nil {
				var any []string
				for _, a := range alt.Content {
					any = append(any, texts(get(a, "required"))...)
				}
				req = append(req, strings.Join(any, " or "))
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", typ.Value, codeList(texts(names)[1:]), strings.Join(req, ", "))
		}
		return b.String()
	case "encryption":
		return "\n" + keyTable(root, "", n) + "\n`fallback` takes `key`, `keyId` and `region` (no fallback of its own).\n"
	case "variables", "resources", "data", "providers":
		return "\n" + namesText(get(n, "propertyNames")) + "\n" + keyTable(root, key+".<name>.", resolve(root, get(n, "additionalProperties")))
	case "environments":
		return "\n" + namesText(get(n, "propertyNames")) + "\n" + keyTable(root, key+".<env>.", get(n, "additionalProperties"))
	case "outputs":
		return "\n" + namesText(get(n, "propertyNames")) + "\nAn output is any value holding references, or the long form:\n\n" + keyTable(root, key+".<name>.", get(resolve(root, get(n, "additionalProperties")), "then"))
	case "moved", "import":
		return "\nEach entry:\n\n" + keyTable(root, key+"[].", get(n, "items"))
	}
	t.Fatalf("no reference section for top-level key %q", key)
	return ""
}

// keyTable is the table of the keys of object schema n.
func keyTable(root *yaml.Node, prefix string, n *yaml.Node) string {
	var b strings.Builder
	b.WriteString("| Key | Type | Default | Meaning |\n|---|---|---|---|\n")
	required := texts(get(n, "required"))
	props := get(n, "properties")
	for _, key := range keysOf(props) {
		p := get(props, key)
		def := defaultOf(p)
		if def != "" {
			def = "`" + def + "`"
		}
		meaning := ""
		if d := get(p, "description"); d != nil {
			meaning = d.Value
		} else if d := get(resolve(root, p), "description"); d != nil {
			meaning = d.Value
		}
		if slices.Contains(required, key) {
			meaning = "**Required.** " + meaning
		}
		fmt.Fprintf(&b, "| `%s%s` | %s | %s | %s |\n", prefix, key, cell(typeText(root, p)), def, cell(meaning))
		if inner, list := objectInside(p); inner != nil {
			sub := prefix + key + "."
			if list {
				sub = prefix + key + "[]."
			}
			rows := keyTable(root, sub, inner)
			b.WriteString(rows[strings.Index(rows, "|---|---|---|---|\n")+len("|---|---|---|---|\n"):])
		}
	}
	return b.String()
}

// objectInside finds the object schema with properties that n holds, as
// an alternative or a list's elements (a security group's rules).
func objectInside(n *yaml.Node) (obj *yaml.Node, list bool) {
	if n == nil {
		return nil, false
	}
	if items := get(n, "items"); items != nil {
		if o, _ := objectInside(items); o != nil {
			return o, true
		}
		if get(items, "properties") != nil {
			return items, true
		}
	}
	if alts := get(n, "anyOf"); alts != nil {
		for _, a := range alts.Content {
			if get(a, "properties") != nil {
				return a, false
			}
			if o, l := objectInside(a); o != nil {
				return o, l
			}
		}
	}
	return nil, false
}

// defaultOf is n's default as text, looking into its alternatives.
func defaultOf(n *yaml.Node) string {
	if d := get(n, "default"); d != nil {
		if d.Kind == yaml.ScalarNode {
			return d.Value
		}
	}
	if alts := get(n, "anyOf"); alts != nil {
		for _, a := range alts.Content {
			if d := defaultOf(a); d != "" {
				return d
			}
		}
	}
	return ""
}

const wholeRefText = "a whole reference"

// typeText says in words what n accepts.
func typeText(root, n *yaml.Node) string {
	if n == nil {
		return "any value"
	}
	if ref := get(n, "$ref"); ref != nil {
		switch name := strings.TrimPrefix(ref.Value, "#/$defs/"); name {
		case "reference":
			return "reference"
		case "wholeReference":
			return wholeRefText
		case "interpolated":
			return "text with a reference"
		case "pluginType":
			return "`<provider>_<type>`"
		case "encryptionFallback":
			return "mapping (as `encryption`)"
		default:
			return typeText(root, get(root, "$defs", name))
		}
	}
	var alts []string
	if anyOf := get(n, "anyOf"); anyOf != nil {
		for _, a := range anyOf.Content {
			// Any value may be a whole reference: the page says so once.
			if txt := typeText(root, a); txt != "null" && txt != wholeRefText && !slices.Contains(alts, txt) {
				alts = append(alts, txt)
			}
		}
		return strings.Join(alts, " or ")
	}
	if enum := get(n, "enum"); enum != nil {
		return "one of " + codeList(texts(enum))
	}
	if c := get(n, "const"); c != nil {
		return "`" + c.Value + "`"
	}
	typ := get(n, "type")
	if typ == nil {
		if get(n, "properties") != nil {
			return "mapping"
		}
		return "any value"
	}
	names := []string{typ.Value}
	if typ.Kind == yaml.SequenceNode {
		names = texts(typ)
	}
	for _, name := range names {
		txt := name
		switch name {
		case "null":
			continue
		case "string":
			txt = "text"
			if p := get(n, "pattern"); p != nil && strings.HasPrefix(p.Value, "^") && !strings.HasPrefix(p.Value, `^\$`) && len(p.Value) <= 30 {
				txt += " matching `" + p.Value + "`"
			}
		case "integer":
			txt = "whole number"
		case "array":
			txt = "list"
			if items := get(n, "items"); items != nil {
				txt += " of " + typeText(root, items)
			}
		case "object":
			txt = "mapping"
			// A mapping of named entries says what an entry is; one of
			// fixed keys lists them in its table.
			if ap := get(n, "additionalProperties"); ap != nil && ap.Kind == yaml.MappingNode && get(n, "properties") == nil {
				if entry := resolve(root, ap); get(entry, "properties") != nil {
					txt += " of names to mappings"
				} else if typeText(root, ap) == "any value" {
					txt += " of names to values"
				} else {
					txt += " of " + typeText(root, ap)
				}
			}
		}
		if lo, hi := get(n, "minimum"), get(n, "maximum"); lo != nil && hi != nil {
			txt += " " + lo.Value + "–" + hi.Value
		} else if lo != nil {
			txt += " ≥ " + lo.Value
		}
		alts = append(alts, txt)
	}
	if len(alts) == 0 {
		return "null"
	}
	return strings.Join(alts, " or ")
}

// resolve follows n's $ref.
func resolve(root, n *yaml.Node) *yaml.Node {
	if ref := get(n, "$ref"); ref != nil {
		return get(root, "$defs", strings.TrimPrefix(ref.Value, "#/$defs/"))
	}
	return n
}

// namesText says what names a mapping's keys may be.
func namesText(n *yaml.Node) string {
	txt := "Names match `" + get(n, "pattern").Value + "`"
	if not := get(n, "not", "enum"); not != nil {
		txt += ", except " + codeList(texts(not))
	}
	return txt + ".\n"
}

func codeList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "`" + x + "`"
	}
	return strings.Join(q, ", ")
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

// cell is s fit for a table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// TestSchemaReadsAsDraft7: the schema uses only keywords draft-07 has too
// (schemacheck refuses the others) and puts nothing but annotations beside
// a $ref (which draft-07 ignores), so editors whose validator predates
// 2020-12 read it the same.
func TestSchemaReadsAsDraft7(t *testing.T) {
	var walk func(n *yaml.Node, at string)
	walk = func(n *yaml.Node, at string) {
		switch n.Kind {
		case yaml.MappingNode:
			keys := keysOf(n)
			if slices.Contains(keys, "$ref") {
				for _, k := range keys {
					switch k {
					case "$ref", "title", "description", "markdownDescription", "examples", "$comment", "default":
					default:
						t.Errorf("%s: %q beside $ref, which draft-07 ignores", at, k)
					}
				}
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], at+"/"+n.Content[i].Value)
			}
		case yaml.SequenceNode:
			for i, e := range n.Content {
				walk(e, fmt.Sprintf("%s/%d", at, i))
			}
		}
	}
	walk(schemaNode(t), "#")
}

// TestConfigurationPageExamples: every YAML example of
// docs/configuration.md, generated or written by hand, validates against
// the schema.
func TestConfigurationPageExamples(t *testing.T) {
	page, err := os.ReadFile(configurationPage)
	if err != nil {
		t.Fatal(err)
	}
	s := compiledSchema(t)
	blocks := strings.Split(string(page), "```yaml\n")[1:]
	if len(blocks) < 12 {
		t.Fatalf("%s has %d YAML examples, want one per top-level key at least", configurationPage, len(blocks))
	}
	for i, block := range blocks {
		example, _, _ := strings.Cut(block, "```")
		errs, _ := schemaErrors(t, s, []byte(example))
		for _, e := range errs {
			for _, r := range e.All() {
				t.Errorf("example %d refused by the schema: %s\n%s", i+1, r, example)
			}
		}
	}
}
