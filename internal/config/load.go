package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/lang/funcs"
	"github.com/kyku/action/internal/value"
	"go.yaml.in/yaml/v3"
)

// File is one configuration file: its name as it should appear in
// positions, and its contents.
type File struct {
	Name string
	Data []byte
}

// Load reads the configuration at path for the default environment, with
// no values from outside the files (see LoadEnv).
func Load(path string) (*Config, error) { return LoadEnv(path, Inputs{}) }

// LoadEnv reads the configuration at path: a file, or a directory whose
// *.yaml and *.yml files (not recursive) are read in name order, and
// expands it with in. Positions name files as path joined with the file
// name. Bad input is returned as a diag.Diagnostics; I/O failures as
// ordinary wrapped errors.
func LoadEnv(path string, in Inputs) (*Config, error) {
	files, err := ReadFiles(path)
	if err != nil {
		return nil, err
	}
	return ParseEnv(files, in)
}

// ReadFiles reads the configuration files at path (see LoadEnv).
func ReadFiles(path string) ([]File, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("load config: %w", err)
	}
	if !info.IsDir() {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("load config: %w", err)
		}
		return []File{{Name: path, Data: data}}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("load config: %w", err)
	}
	var files []File
	for _, e := range entries { // ReadDir sorts by name
		ext := filepath.Ext(e.Name())
		if e.IsDir() || (ext != ".yaml" && ext != ".yml") {
			continue
		}
		name := filepath.Join(path, e.Name())
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("load config: %w", err)
		}
		files = append(files, File{Name: name, Data: data})
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("load config: no *.yaml or *.yml files in %s", path)
	}
	return files, nil
}

// Parse validates files as one configuration for the default environment
// with no values from outside the files (see ParseEnv).
func Parse(files []File) (*Config, error) { return ParseEnv(files, Inputs{}) }

// ParseEnv validates files as one configuration (resources, outputs,
// variables, environments, moved and import entries merged; at most one
// provider and one backend) and expands it for in: variables get their
// values, count and forEach their instances. It does no I/O but what the
// file functions of its templates (file(), templatefile(), …) read: files
// of the repository the first file is in (template.go). On bad input
// it returns a nil Config and every problem found, as a sorted
// diag.Diagnostics.
func ParseEnv(files []File, in Inputs) (*Config, error) {
	p := &parser{
		cfg:         &Config{Provider: ProviderConfig{Name: "sim"}, Environment: in.Environment},
		inputs:      in,
		resources:   map[string]*Resource{},
		outputs:     map[string]*Output{},
		expanding:   map[*yaml.Node]bool{},
		vars:        map[string]*Variable{},
		envs:        map[string]*envDecl{},
		templates:   map[string]*template{},
		substituted: map[*yaml.Node]bool{},
		secret:      map[*yaml.Node]*Variable{},
		exprs:       map[*yaml.Node]*Expr{},
		malformed:   map[*yaml.Node]hcl.Diagnostics{},
		sources:     map[string][]byte{},
		fns:         newFunctionTables(files),
	}
	for _, f := range files {
		p.file = f.Name
		p.sources[f.Name] = f.Data
		p.cfg.Files = append(p.cfg.Files, f.Name)
		p.parseFile(f.Data)
	}
	p.file = ""
	p.resolveVariables()
	p.expandProviders()
	p.declareTemplates()
	p.expandResources()
	p.expandOutputs()
	p.finish()
	p.movedAndImports()
	p.cfg.Expressions = len(p.exprs) > 0
	if len(p.diags) > 0 {
		p.diags.Sort()
		return nil, p.diags
	}
	return p.cfg, nil
}

// parser holds the state of one Parse.
type parser struct {
	file       string // current file, for positions
	diags      diag.Diagnostics
	aliasNodes int                 // YAML nodes visited through aliases (alias bomb guard)
	aliasDepth int                 // how many aliases the current walk is inside
	tooBig     bool                // reported the alias budget
	expanding  map[*yaml.Node]bool // alias targets being walked

	cfg         *Config
	inputs      Inputs
	providerPos *diag.Pos
	resources   map[string]*Resource // by address
	outputs     map[string]*Output
	refs        []pendingRef // checked once every resource is known
	deps        []pendingDep

	// Read from every file first, expanded once all are read.
	vars         map[string]*Variable
	envs         map[string]*envDecl
	rawResources []rawNode // and data sources (rawNode.data)
	rawProviders []rawNode
	rawOutputs   []rawNode
	rawMoved     []rawNode
	rawImports   []rawNode

	templates   map[string]*template           // by resource name
	order       []*template                    // as written
	scope       *scope                         // non-nil: deref substitutes (see expand.go)
	substituted map[*yaml.Node]bool            // nodes subst made: nothing left to substitute
	secret      map[*yaml.Node]*Variable       // nodes holding a sensitive variable's value: which (the first, of several)
	exprs       map[*yaml.Node]*Expr           // nodes standing for a template the engine evaluates (template.go)
	reads       map[*yaml.Node]*reads          // nodes standing for a template reading resources: what it reads, where (reads.go)
	malformed   map[*yaml.Node]hcl.Diagnostics // strings whose template does not parse: why
	sources     map[string][]byte              // the files' texts, for diagnostics' source lines
	fns         *funcs.Tables
	propPos     *diag.Positions // the PropPos of the resource whose properties are walked
}

// rawNode is a key and value read from a file, processed later.
type rawNode struct {
	file     string
	key, val *yaml.Node
	data     bool // an entry of the data: section
}

var syntaxLineRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
})

func (p *parser) syntaxErr(err error, data []byte) {
	msg := err.Error()
	if m := syntaxLineRE().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		if pos, ok := unquotedFlowRef(data, line); ok && strings.HasPrefix(m[2], "did not find expected ','") {
			pos.File = p.file
			p.diags.Add(pos, "invalid YAML: %s: inside { } and [ ], quote references, e.g. \"${main-vpc}\"", m[2])
			return
		}
		if pos, ok := unquotedFlowAddress(data, line); ok && strings.HasPrefix(m[2], "did not find expected ','") {
			pos.File = p.file
			p.diags.Add(pos, "invalid YAML: %s: inside { }, quote instance addresses, e.g. to: \"web[0]\"", m[2])
			return
		}
		p.diags.Add(diag.Pos{File: p.file, Line: line}, "invalid YAML: %s", m[2])
		return
	}
	p.diags.Add(diag.Pos{File: p.file}, "invalid YAML: %s", strings.TrimPrefix(msg, "yaml: "))
}

// unquotedFlowRef finds, from line from on, the first unquoted "${" that
// follows a "{" or "[" on its line: YAML reads "{ network: ${vpc} }" as a
// nested flow mapping, the commonest syntax error in Kyku files. The YAML
// library's line for it points before the culprit.
func unquotedFlowRef(data []byte, from int) (diag.Pos, bool) {
	for i, line := range strings.Split(string(data), "\n") {
		if i+1 < from {
			continue
		}
		if k := strings.Index(line, "#"); k >= 0 {
			line = line[:k]
		}
		opener := strings.IndexAny(line, "{[")
		for off := 0; opener >= 0; {
			k := strings.Index(line[off:], "${")
			if k < 0 {
				break
			}
			k += off
			before := line[:k]
			if k > opener && strings.Count(before, `"`)%2 == 0 && strings.Count(before, "'")%2 == 0 {
				return diag.Pos{Line: i + 1, Col: k + 1}, true
			}
			off = k + 2
		}
	}
	return diag.Pos{}, false
}

// flowAddressRE is an unquoted value name[… inside a flow mapping.
var flowAddressRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\{[^"']*:\s*([A-Za-z0-9_][A-Za-z0-9_-]*\[)`)
})

// unquotedFlowAddress finds, from line from on, the first unquoted
// instance address (to: web[0]) inside a flow mapping, which YAML reads
// as the start of a list.
func unquotedFlowAddress(data []byte, from int) (diag.Pos, bool) {
	for i, line := range strings.Split(string(data), "\n") {
		if i+1 < from {
			continue
		}
		if k := strings.Index(line, "#"); k >= 0 {
			line = line[:k]
		}
		if m := flowAddressRE().FindStringSubmatchIndex(line); m != nil {
			return diag.Pos{Line: i + 1, Col: m[2] + 1}, true
		}
	}
	return diag.Pos{}, false
}

func (p *parser) parseFile(data []byte) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if !errors.Is(err, io.EOF) {
			p.syntaxErr(err, data)
		}
		return
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		p.diags.Add(p.pos(&next), "only one YAML document per file is supported (remove the second ---)")
	case !errors.Is(err, io.EOF):
		p.syntaxErr(err, data)
	}
	if len(doc.Content) == 0 {
		return
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return
	}
	pairs, ok := p.mapping(root, "top level", `mapping with "resources"`)
	if !ok {
		return
	}
	for _, kv := range pairs {
		switch kv.key.Value {
		case "provider":
			p.provider(kv.key, kv.val)
		case "backend":
			p.backend(kv.key, kv.val)
		case "encryption":
			p.encryption(kv.key, kv.val)
		case "resources":
			p.rawResources = append(p.rawResources, p.rawPairs(kv.val, "resources", "mapping of resource names to resources", false)...)
		case "data":
			for _, raw := range p.rawPairs(kv.val, "data", "mapping of data source names to data sources", false) {
				raw.data = true
				p.rawResources = append(p.rawResources, raw)
			}
		case "providers":
			p.rawProviders = append(p.rawProviders, p.rawPairs(kv.val, "providers", "mapping of provider names to providers", true)...)
		case "outputs":
			p.rawOutputs = append(p.rawOutputs, p.rawPairs(kv.val, "outputs", "mapping of output names to values", true)...)
		case "variables":
			p.variableMap(kv.val)
		case "environments":
			p.environmentMap(kv.val)
		case "moved":
			p.rawMoved = append(p.rawMoved, rawNode{file: p.file, key: kv.key, val: kv.val})
		case "import":
			p.rawImports = append(p.rawImports, rawNode{file: p.file, key: kv.key, val: kv.val})
		default:
			p.unknownKey(kv.key, "top level", topKeys)
		}
	}
}

var topKeys = []string{"backend", "data", "encryption", "environments", "import", "moved", "outputs", "provider", "providers", "resources", "variables"}

// rawPairs checks that n is a mapping (or empty) and keeps its pairs for
// later; with dupKeys a key repeated in the mapping is reported here.
func (p *parser) rawPairs(n *yaml.Node, path, expected string, dupKeys bool) []rawNode {
	n = p.deref(n, path)
	if n == nil || isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		p.typeErr(n, path, expected)
		return nil
	}
	out := make([]rawNode, 0, len(n.Content)/2)
	var seen map[string]*yaml.Node
	if dupKeys {
		seen = make(map[string]*yaml.Node, len(n.Content)/2)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if dupKeys {
			if first, dup := seen[k.Value]; dup {
				p.diags.Add(p.pos(k), "%s: duplicate key %q (first at line %d)", path, k.Value, first.Line)
				continue
			}
			seen[k.Value] = k
		}
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!null" && !(path == "providers" && k.Value == "null") { // null: the null provider
			p.diags.Add(p.pos(k), "%s: names must be plain strings, got %s", path, kindName(k))
			continue
		}
		if k.ShortTag() == "!!merge" {
			p.diags.Add(p.pos(k), "%s: merge keys (<<) are not supported; repeat the keys or use an alias for the whole value", path)
			continue
		}
		out = append(out, rawNode{file: p.file, key: k, val: v})
	}
	return out
}

// unknownKey reports a key that is not in known.
func (p *parser) unknownKey(k *yaml.Node, where string, known []string) {
	hint := didYouMean(k.Value, known)
	if hint == "" {
		hint = " (expected one of: " + strings.Join(known, ", ") + ")"
	}
	p.diags.Add(p.pos(k), "%s: unknown key %q%s", where, k.Value, hint)
}

func (p *parser) provider(k, v *yaml.Node) {
	if p.providerPos != nil {
		p.diags.Add(p.pos(k), "duplicate \"provider\" (first defined at %s)", p.providerPos)
		return
	}
	pos := p.pos(k)
	p.providerPos = &pos
	pc := ProviderConfig{Pos: pos}
	if d := p.deref(v, "provider"); d != nil && d.Kind == yaml.ScalarNode {
		if name, ok := p.str(d, "provider"); ok {
			pc.Name = name
			p.setProvider(pc)
		}
		return
	}
	pairs, ok := p.mapping(v, "provider", "provider name or mapping with \"name\"")
	if !ok {
		return
	}
	var nameNode *yaml.Node
	for _, kv := range pairs {
		if kv.key.Value == "name" {
			nameNode = kv.val
			continue
		}
		val := p.deref(kv.val, "provider."+kv.key.Value)
		if val == nil {
			continue
		}
		if val.Kind != yaml.ScalarNode || val.ShortTag() == "!!null" {
			p.typeErr(val, "provider."+kv.key.Value, "a single value")
			continue
		}
		if pc.Settings == nil {
			pc.Settings = map[string]string{}
		}
		pc.Settings[kv.key.Value] = val.Value
	}
	if nameNode == nil {
		p.diags.Add(pos, "provider: missing \"name\" (e.g. name: sim)")
		return
	}
	if name, ok := p.str(nameNode, "provider.name"); ok {
		pc.Name = name
		p.setProvider(pc)
	}
}

// setProvider records pc unless its name is empty (reported here).
func (p *parser) setProvider(pc ProviderConfig) {
	if strings.TrimSpace(pc.Name) == "" {
		p.diags.Add(pc.Pos, "provider: name must not be empty (e.g. sim or aws)")
		return
	}
	p.cfg.Provider = pc
}

// outputKeys are the keys of an output's long form, { value: …,
// sensitive: true, description: … }, as Terraform's output block has them.
var outputKeys = []string{"description", "sensitive", "value"}

// outputDecl reads output o written as n: the node of its value, and
// whether it is declared sensitive (nil: not declared). A mapping with a
// "value" key is the long form, whose other keys must be outputKeys (an
// output whose value is itself such a map is written { value: { value: … } });
// any other node is the value itself. Nil node: the long form was wrong,
// and said so.
func (p *parser) outputDecl(o *Output, n *yaml.Node, owner string) (*yaml.Node, *bool) {
	path := "outputs." + o.Name
	m := p.deref(n, path)
	if m == nil || m.Kind != yaml.MappingNode || !slices.ContainsFunc(m.Content, func(k *yaml.Node) bool {
		return k.Kind == yaml.ScalarNode && k.Value == "value"
	}) {
		return n, nil
	}
	pairs, ok := p.mapping(m, path, "mapping")
	if !ok {
		return nil, nil
	}
	var val *yaml.Node
	var declared *bool
	for _, kv := range pairs {
		switch kv.key.Value {
		case "value":
			val = kv.val
		case "sensitive":
			if b, ok := p.boolean(kv.val, path+".sensitive"); ok {
				declared = &b
			}
		case "description":
			o.Description, _ = p.str(kv.val, path+".description")
		default:
			p.unknownKey(kv.key, owner, outputKeys)
		}
	}
	return val, declared
}

var nameRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_-]*$`)
})

// expandOutputs reads every output (variables substituted).
func (p *parser) expandOutputs() {
	for _, raw := range p.rawOutputs {
		p.file = raw.file
		name, pos := raw.key.Value, p.pos(raw.key)
		if !nameRE().MatchString(name) {
			p.diags.Add(pos, "output name %q is invalid: use letters, digits, _ and - (not first)", name)
			continue
		}
		if first, dup := p.outputs[name]; dup {
			p.diags.Add(pos, "duplicate output %q (first defined at %s)", name, first.Pos)
			continue
		}
		owner := fmt.Sprintf("output %q", name)
		o := &Output{Name: name, Pos: pos}
		valNode, declared := p.outputDecl(o, raw.val, owner)
		if valNode == nil {
			continue
		}
		p.scope = &scope{owner: owner}
		val, _ := p.generic(valNode, "outputs."+name, func(n *yaml.Node, s, path string) any {
			p.checkString(n, s, owner, "")
			return p.textValue(n, s)
		})
		sc := p.scope
		p.scope = nil
		if val == nil {
			if d := p.deref(valNode, "outputs."+name); d != nil && d.ShortTag() == "!!null" {
				p.diags.Add(pos, "%s: missing value (e.g. ${web.publicIp})", owner)
			}
		}
		o.Value = val
		switch {
		case declared != nil && !*declared && sc.sensitive:
			// Terraform refuses it too: an output is never quietly shown
			// in clear when what it reads is secret.
			p.diags.Add(pos, "%s: declared sensitive: false, but it holds sensitive variable %q (%s); remove the declaration or make it sensitive: true",
				owner, sc.secretVar.Name, sc.secretVar.sensitiveWhy())
		case declared != nil:
			o.Sensitive = *declared
		default:
			o.Sensitive = sc.sensitive
		}
		p.outputs[name] = o
		p.cfg.Outputs = append(p.cfg.Outputs, o)
	}
	p.file = ""
}

// finish runs the checks that need every file: auto-subnets, references,
// dependsOn and cycles. It sorts resources and outputs by name.
func (p *parser) finish() {
	slices.SortFunc(p.cfg.Resources, func(a, b *Resource) int { return value.CompareNames(a.Name, b.Name) })
	sort.Slice(p.cfg.Outputs, func(i, j int) bool { return p.cfg.Outputs[i].Name < p.cfg.Outputs[j].Name })
	auto := p.autoSubnets()
	p.checkRefs(auto)
	p.checkSafeNames(auto)
	p.checkCycles(auto)
	p.cfg.Environments = p.envNames()
	for _, name := range p.varNames() {
		p.cfg.Variables = append(p.cfg.Variables, p.vars[name])
	}
}
