package config

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/value"
	"go.yaml.in/yaml/v3"
)

// Config is a loaded, validated configuration: the desired resources (with
// defaults applied and references kept as "${…}" strings) and outputs.
type Config struct {
	Files      []string       `json:"files,omitempty"`
	Provider   ProviderConfig `json:"provider"`
	Backend    *Backend       `json:"backend,omitempty"`
	Encryption *Encryption    `json:"encryption,omitempty"`
	Resources  []*Resource    `json:"resources"` // sorted by value.CompareNames
	Outputs    []*Output      `json:"outputs,omitempty"`
	// Moved and Imports are the moved and import entries, addresses in
	// canonical form; the engine carries them out.
	Moved   []*Moved  `json:"moved,omitempty"`
	Imports []*Import `json:"imports,omitempty"`
	// Forget are the addresses (a resource, an instance, a module) whose
	// objects in state leave it without being destroyed (a Terraform
	// removed block with lifecycle destroy = false).
	Forget []string `json:"forget,omitempty"`
	// RemovedDestroy are the addresses a removed block with lifecycle
	// destroy = true names: their objects are destroyed, even those whose
	// lifecycle said destroy = false (state.Resource.SkipDestroy).
	RemovedDestroy []string `json:"removedDestroy,omitempty"`
	// CountReads are the count and for_each arguments of a Terraform
	// configuration that read values known before planning (state, data
	// sources): a plan that changes what they read is refused.
	CountReads []*CountRead `json:"countReads,omitempty"`
	// CheckAssertions are a Terraform configuration's check blocks'
	// assertions: the plan evaluates them and reports those that fail as
	// warnings (Plan.Warnings), as OpenTofu does; they never stop a plan
	// or an apply, so the configuration's hash leaves them out.
	CheckAssertions []*Condition `json:"checkAssertions,omitempty"`
	// Warnings are what reading the configuration found to warn of (a
	// Terraform variables file's value for a variable not declared): a
	// plan reports them (Plan.Warnings), as OpenTofu does.
	Warnings []string `json:"warnings,omitempty"`
	// ModuleOutputConditions are the preconditions of called modules'
	// outputs that read resources: checked when the plan knows what
	// they read, and again once the apply made it (a failure is the
	// plan's, or the apply's, error).
	ModuleOutputConditions []*Condition `json:"moduleOutputConditions,omitempty"`
	// Providers are the Terraform provider plugins of the `providers:`
	// section, sorted by name (see providers.go).
	Providers []*PluginProvider `json:"providers,omitempty"`

	// Terraform says the configuration was read from .tf files (package
	// tfconfig): properties may hold expressions (value.Expr), which a
	// plan file keeps only as descriptions, so a saved plan of it is
	// applied with the configuration read again.
	Terraform bool `json:"terraform,omitempty"`
	// Expressions says a kyku.yaml template computes with what resources
	// hold (an Expr, template.go): a plan file keeps it as a description
	// too, so a saved plan of it is applied with the configuration read
	// again, as a Terraform configuration's is.
	Expressions bool `json:"expressions,omitempty"`

	// Environment is the environment the configuration was expanded for
	// ("" for the default one) and Environments the ones it declares.
	Environment  string   `json:"environment,omitempty"`
	Environments []string `json:"-"`
	// Variables are the declared variables with the values this
	// expansion used (sorted by name).
	Variables []*Variable `json:"-"`
	// Secrets are the values of sensitive variables (as text), so that
	// whatever shows a value can mask them; they are also in the
	// properties of the resources that use them.
	Secrets []string `json:"secrets,omitempty"`

	// Pending, when set, says the configuration is partial: a Terraform
	// configuration's resources (or modules) whose count or for_each read
	// values known only from state or a data source are left out of it
	// (OpenTofu reads them at plan). Pending expands it again with what
	// the state holds and the data sources read then; the engine plans,
	// applies and refreshes only a whole configuration (Engine.Complete).
	// It names the providers, the backend and the data sources, so a
	// workspace can be opened with it.
	Pending Expand `json:"-"`
	// Undecided are the resources and module calls (addresses) a partial
	// expansion left out, their count or for_each not known. A
	// completion that fails on them returns, with its error, the
	// configuration without them: a plan whose --target names none of
	// them plans with it, as OpenTofu's targeting never evaluates them.
	Undecided []string `json:"-"`

	mu    sync.Mutex // guards index: Resource is called from many goroutines
	index map[string]*Resource
}

// ProviderConfig names the provider and carries its settings (e.g. region).
type ProviderConfig struct {
	Name     string            `json:"name"`
	Settings map[string]string `json:"settings,omitempty"`
	Pos      diag.Pos          `json:"-"`
}

// Backend is where state lives. Type is "local" (default), "s3", "gcs",
// "spaces" or "http"; each type takes only its own keys (backendKeys).
type Backend struct {
	Type            string      `json:"type"`
	Path            string      `json:"path,omitempty"` // local: state directory
	Bucket          string      `json:"bucket,omitempty"`
	Prefix          string      `json:"prefix,omitempty"`
	Region          string      `json:"region,omitempty"`
	Endpoint        string      `json:"endpoint,omitempty"`
	UsePathStyle    bool        `json:"usePathStyle,omitempty"`
	KMSKeyID        string      `json:"kmsKeyId,omitempty"`
	BackupRetention int         `json:"backupRetention,omitempty"` // 0: keep all
	Lock            *bool       `json:"lock,omitempty"`            // spaces: false runs without a lock
	Leases          *bool       `json:"leases,omitempty"`          // nil: an apply leases what it touches where the store can (docs/concurrent-applies.md); false: the whole-state lock
	HTTP            HTTPBackend `json:"http,omitempty"`
	Pos             diag.Pos    `json:"-"`
}

// HTTPBackend is the part of a backend of type http (Terraform's HTTP
// backend protocol). The password is never in the file: KYKU_HTTP_PASSWORD.
type HTTPBackend struct {
	Address       string `json:"address,omitempty"`
	LockAddress   string `json:"lockAddress,omitempty"`
	UnlockAddress string `json:"unlockAddress,omitempty"`
	Username      string `json:"username,omitempty"`
	UpdateMethod  string `json:"updateMethod,omitempty"` // default POST
	LockMethod    string `json:"lockMethod,omitempty"`   // default LOCK
	UnlockMethod  string `json:"unlockMethod,omitempty"` // default UNLOCK
	RetryMax      int    `json:"retryMax,omitempty"`     // 0: the backend's default
}

// Encryption says how state, journal, backups, saved plans and audit
// records are encrypted before they reach the backend.
type Encryption struct {
	Key      string      `json:"key"`             // "passphrase" or "aws-kms"
	KeyID    string      `json:"keyId,omitempty"` // aws-kms: key ID, ARN or alias
	Region   string      `json:"region,omitempty"`
	Fallback *Encryption `json:"fallback,omitempty"` // reads what the previous key wrote
	Pos      diag.Pos    `json:"-"`
}

// Resource is one desired resource.
type Resource struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Properties map[string]any `json:"properties"`
	Protect    bool           `json:"protect,omitempty"`
	// CreateBeforeDestroy: a replace makes the replacement first and
	// destroys the object after it (Terraform's lifecycle
	// create_before_destroy), whether or not its provider asks for it.
	CreateBeforeDestroy bool `json:"createBeforeDestroy,omitempty"`
	// SkipDestroy: the object is never destroyed, only forgotten (dropped
	// from state, left in the cloud) where it would be: replaced (forget
	// then create), removed from the configuration, destroyed
	// (OpenTofu 1.12's lifecycle destroy = false). State records it.
	SkipDestroy   bool     `json:"skipDestroy,omitempty"`
	IgnoreChanges []string `json:"ignoreChanges,omitempty"`
	DependsOn     []string `json:"dependsOn,omitempty"`
	// AutoFrom names the Vpc that injected this subnet (auto-subnets).
	AutoFrom string `json:"autoFrom,omitempty"`
	// Provider is the name of the Terraform provider (Config.Providers)
	// whose type Type is; "" for Kyku's own types. Data says the resource
	// is one of its data sources (the `data:` section): read, never
	// changed.
	Provider string `json:"provider,omitempty"`
	Data     bool   `json:"data,omitempty"`
	// CheckNested: a data source scoped to a check block (Terraform's
	// check { data … }): read at plan for its assertions, and read again
	// during apply, as OpenTofu plans it.
	CheckNested bool `json:"checkNested,omitempty"`
	// DynamicTypes are, for a Terraform configuration's attributes of any
	// type (terraform_data's input, output and triggers_replace), the
	// types (Terraform's JSON type syntax) its expression gave their
	// values, when known at expansion: OpenTofu's state records them
	// ("map" where a value alone would read as an object).
	DynamicTypes map[string]any `json:"dynamicTypes,omitempty"`
	// Sensitive lists the top-level properties whose value holds a
	// sensitive variable's: they are masked wherever a value is shown,
	// like the properties the schema marks sensitive.
	Sensitive []string `json:"sensitive,omitempty"`
	// SensitiveWithin, for a property of Sensitive whose value is not
	// sensitive as a whole, lists the paths inside it (value.Ref's Path
	// syntax: `.password`, `["key"]`, `[0]`) whose values are: what a
	// plan's planned values mask, as OpenTofu's do. A property missing
	// here is sensitive whole.
	SensitiveWithin map[string][]string `json:"sensitiveWithin,omitempty"`
	// ReplaceTriggeredBy replaces the resource when one of these changes
	// (Terraform's lifecycle replace_triggered_by): a resource instance
	// that the plan updates or replaces, or one attribute of it whose
	// value the plan changes. They are among DependsOn.
	ReplaceTriggeredBy []Trigger `json:"replaceTriggeredBy,omitempty"`
	// Conditions are the resource's custom conditions (Terraform's
	// precondition and postcondition blocks), checked by the plan.
	Conditions []*Condition `json:"conditions,omitempty"`

	Pos diag.Pos `json:"-"` // of the resource's key
	// PropPos holds where each property is written: a top-level property
	// at its key ("ingress"), a list element at the element ("ingress[2]"),
	// a field or map entry at its key ("ingress[2].cidr", "tags.env").
	PropPos diag.Positions `json:"-"`
	// BlockProps are the properties a Terraform configuration writes as
	// nested blocks (dynamic ones among them), sorted: a provider refusing
	// one refuses a block type, in OpenTofu's words.
	BlockProps []string `json:"-"`
}

// DynamicArgs are the arguments of r that take a value of any type,
// which OpenTofu's state records with its type (DynamicTypes):
// terraform_data's input and triggers_replace; none of any other type.
func (r *Resource) DynamicArgs() []string {
	if r.Type != "terraform_data" || r.Data {
		return nil
	}
	return terraformDataDynamic[:]
}

// terraformDataDynamic are terraform_data's DynamicArgs (static: asked
// for every argument of every resource expanded, it allocates nothing).
var terraformDataDynamic = [...]string{"input", "triggers_replace"}

// WithDynamicType is types (made when nil) with arg's type t, and its
// output's when arg is input (terraform_data's output is its input).
func WithDynamicType(types map[string]any, arg string, t any) map[string]any {
	if types == nil {
		types = map[string]any{}
	}
	types[arg] = t
	if arg == "input" {
		types["output"] = t
	}
	return types
}

// Condition is a custom condition: Check evaluates to "" when it holds
// (or cannot be known yet), else to the error message. Post says it is a
// postcondition, checked against the resource's planned values (self).
type Condition struct {
	Post  bool       `json:"post,omitempty"`
	Check value.Expr `json:"check"`
	Pos   diag.Pos   `json:"-"`
}

// Trigger is one entry of Resource.ReplaceTriggeredBy: a resource
// instance, and an attribute of it ("" for any change to it), and a path
// into that attribute (value.Ref's Path syntax, `.note`, `[0]`,
// `["key"]`; "" for the whole attribute): the value there must change.
type Trigger struct {
	Resource string `json:"resource"`
	Attr     string `json:"attr,omitempty"`
	Path     string `json:"path,omitempty"`
}

// Output is a named value read from resources after apply.
type Output struct {
	Name  string `json:"name"`
	Value any    `json:"value"` // canonical value holding references
	// Sensitive: the value holds a sensitive variable's, or the output is
	// declared sensitive ({ value: …, sensitive: true }); it is masked
	// when outputs are listed.
	Sensitive   bool   `json:"sensitive,omitempty"`
	Description string `json:"description,omitempty"`
	// Conditions are the output's preconditions that read resources
	// (Terraform's precondition blocks in an output), checked by the plan
	// once what they read is known.
	Conditions []*Condition `json:"conditions,omitempty"`
	// Type is the type of a Terraform output's value known before
	// planning, in Terraform's JSON type syntax, as a state records it
	// (an expression's says its own: value.TypedExpr); nil: its value's.
	Type any      `json:"-"`
	Pos  diag.Pos `json:"-"`
}

// Moved renames a resource in state: what state calls From is To from now
// on, without destroying or creating anything.
type Moved struct {
	From string   `json:"from"`
	To   string   `json:"to"`
	Pos  diag.Pos `json:"-"`
}

// CountRead is a count or for_each argument (Arg) of By (a resource or a
// module call, as OpenTofu addresses it) that read the resource
// instances Reads.
type CountRead struct {
	By    string   `json:"by"`
	Arg   string   `json:"arg"`
	Reads []string `json:"reads"`
	Pos   diag.Pos `json:"-"`
}

// Import adopts an object that exists in the cloud (provider ID ID) as
// the resource To.
type Import struct {
	To  string   `json:"to"`
	ID  string   `json:"id"`
	Pos diag.Pos `json:"-"`
}

// SensitiveProps lists r's properties that SensitiveProp says are masked.
func (r *Resource) SensitiveProps() []string {
	var out []string
	for name := range r.Properties {
		if r.SensitiveProp(name) {
			out = append(out, name)
		}
	}
	return out
}

// SensitiveProp reports whether property name of r is masked wherever a
// value is shown: the schema says so, or it holds a sensitive variable.
func (r *Resource) SensitiveProp(name string) bool {
	if t, ok := schema.Lookup(r.Type); ok && t.Sensitive(name) {
		return true
	}
	return slices.Contains(r.Sensitive, name)
}

// MinSecret is the length below which a value is not scrubbed from text:
// replacing "1" or "on" in every text would garble everything else.
const MinSecret = 3

// SecretValues returns every value that must not be shown in clear: the
// sensitive variables' values, and the sensitive properties' string
// values, longest first (so that masking a long one is not spoilt by a
// shorter one inside it).
func (c *Config) SecretValues() []string {
	if c == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		// Shorter values are left to the masking of the values themselves
		// (sensitive properties are never shown): masking "1" or "on" in
		// every text would hide everything else.
		if len(s) >= MinSecret && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, s := range c.Secrets {
		add(s)
	}
	for _, r := range c.Resources {
		t, ok := schema.Lookup(r.Type)
		for name, v := range r.Properties {
			if (ok && t.Sensitive(name)) || slices.Contains(r.Sensitive, name) {
				for _, s := range leafTexts(v) {
					add(s)
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i] < out[j]
	})
	return out
}

// OutsideValues returns the values of the variables given outside the
// files (--var, the Action's vars input, KYKU_VAR_<name>) as text, longest
// first: where secrets come from, so these — and only these — are what a
// front door registers as log masks (::add-mask::). A value the files
// themselves hold (a default, an environment's value, a property) is
// never one: masking text a pull request chose would let it hide words of
// the log. Values shorter than 3 characters are left out (masking "1"
// would hide every 1 of the log).
func (c *Config) OutsideValues() []string {
	if c == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, v := range c.Variables {
		if !v.given() {
			continue
		}
		for _, s := range leafTexts(v.Value) {
			if len(s) >= MinSecret && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i] < out[j]
	})
	return out
}

// GivenTexts is what a front door masks for a value given as text outside
// the files (--var, KYKU_VAR_<name>) before any configuration is read: the
// text itself and, when it reads as a YAML or JSON list or map, every
// scalar in it (that is how the value appears once expanded). Texts
// shorter than 3 characters are left out, as in OutsideValues.
func GivenTexts(s string) []string {
	var out []string
	add := func(x string) {
		if len(strings.TrimSpace(x)) >= MinSecret && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	add(s)
	var raw any
	if yaml.Unmarshal([]byte(s), &raw) == nil {
		switch raw.(type) {
		case []any, map[string]any:
			if v, err := canonicalYAML(raw); err == nil {
				for _, x := range leafTexts(v) {
					add(x)
				}
			}
		}
	}
	return out
}

// leafTexts is every scalar inside v as text (strings as they are).
func leafTexts(v any) []string { return value.AppendLeaves(nil, v) }

// Resource returns the resource called name, or nil.
// SensitiveOutputs names the outputs whose values are masked wherever
// outputs are listed (kyku output, apply's list, the apply's comment): those
// holding a sensitive variable's value or declared sensitive. Nil-safe.
func (c *Config) SensitiveOutputs() map[string]bool {
	if c == nil {
		return map[string]bool{}
	}
	sensitive := make(map[string]bool, len(c.Outputs))
	for _, o := range c.Outputs {
		if o != nil && o.Sensitive {
			sensitive[o.Name] = true
		}
	}
	return sensitive
}

func (c *Config) Resource(name string) *Resource {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.index == nil || len(c.index) != len(c.Resources) {
		c.reindex()
	}
	return c.index[name]
}

func (c *Config) reindex() {
	c.index = make(map[string]*Resource, len(c.Resources))
	for _, r := range c.Resources {
		c.index[r.Name] = r
	}
}

// Add inserts r keeping Resources sorted by name (value.CompareNames).
func (c *Config) Add(r *Resource) {
	i := sort.Search(len(c.Resources), func(i int) bool { return value.CompareNames(c.Resources[i].Name, r.Name) >= 0 })
	c.Resources = append(c.Resources, nil)
	copy(c.Resources[i+1:], c.Resources[i:])
	c.Resources[i] = r
	c.mu.Lock()
	c.index = nil
	c.mu.Unlock()
}

// Hash is the sha256 of the canonical JSON of the desired configuration as
// the user wrote it (provider, resources, outputs; not file names,
// positions or injected auto-subnets). A saved plan records it so that
// applying it against a changed config is refused. The JSON is what
// json.Marshal writes for these types (hash.go writes it without
// reflection; a test holds it to json.Marshal and to the types' fields).
//
// The JSON is hashed as it is written, a chunk at a time: one buffer that
// stays in the CPU's cache, however large the configuration (writing all
// of it first cost a 10,000-resource plan a few megabytes of buffer,
// copied as it grew and read back cold).
func (c *Config) Hash() string {
	h, _ := c.hash(true)
	return h
}

// SecretsHash is Hash with the secret values in: it tells apart
// configurations that differ only in a secret, and it is a digest of
// secrets, so it stays private (a saved plan holds it to prove its
// embedded configuration unchanged; a redacted one does not).
func (c *Config) SecretsHash() string {
	h, _ := c.hash(false)
	return h
}

// Hashes is Hash and SecretsHash, in one pass over c when it masks no
// secret (the two are then the same bytes), as a plan needs both.
func (c *Config) Hashes() (hash, secretsHash string) {
	hash, masked := c.hash(true)
	if !masked {
		return hash, hash
	}
	return hash, c.SecretsHash()
}

// hash is Hash (hideSecrets) or SecretsHash, and whether a secret was
// masked.
func (c *Config) hash(hideSecrets bool) (string, bool) {
	h := sha256.New()
	mask := &secretMask{hide: hideSecrets}
	b, err := c.appendCanonical(make([]byte, 0, hashChunk+4<<10), mask, func(b []byte) []byte {
		h.Write(b)
		return b[:0]
	})
	if err != nil {
		// Canonical values always marshal; a failure is a programming error.
		panic("config hash: " + err.Error())
	}
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)), mask.masked
}

// Clone is a copy of c that can be changed without changing c: its own
// slices of resources, outputs, moves, imports, variables and secrets,
// and its own provider settings. The resources themselves are shared (a
// caller that changes one replaces it in the copy's slice).
func (c *Config) Clone() *Config {
	return &Config{
		Files: slices.Clone(c.Files), Backend: c.Backend, Encryption: c.Encryption,
		Provider:  ProviderConfig{Name: c.Provider.Name, Settings: maps.Clone(c.Provider.Settings), Pos: c.Provider.Pos},
		Resources: slices.Clone(c.Resources), Outputs: slices.Clone(c.Outputs),
		Moved: slices.Clone(c.Moved), Imports: slices.Clone(c.Imports), Forget: slices.Clone(c.Forget), RemovedDestroy: slices.Clone(c.RemovedDestroy), CountReads: slices.Clone(c.CountReads),
		Providers: slices.Clone(c.Providers), CheckAssertions: slices.Clone(c.CheckAssertions), Warnings: slices.Clone(c.Warnings), ModuleOutputConditions: slices.Clone(c.ModuleOutputConditions),
		Terraform: c.Terraform, Expressions: c.Expressions, Environment: c.Environment, Environments: slices.Clone(c.Environments),
		Variables: slices.Clone(c.Variables), Secrets: slices.Clone(c.Secrets), Pending: c.Pending, Undecided: slices.Clone(c.Undecided),
	}
}

// hashChunk is how much canonical JSON Hash gathers before hashing it.
const hashChunk = 16 << 10

// RemovedDestroys reports whether name (a state resource's) is among the
// ones RemovedDestroy names, as Forgets tells Forget's.
func (c *Config) RemovedDestroys(name string) bool {
	for _, f := range c.RemovedDestroy {
		if value.Within(name, f) {
			return true
		}
	}
	return false
}

// Forgets reports whether name (a state resource's) is among the ones
// Forget names: the resource itself, an instance of it, or a resource of
// a module it names.
func (c *Config) Forgets(name string) bool {
	for _, f := range c.Forget {
		if value.Within(name, f) {
			return true
		}
	}
	return false
}
