package tenancy

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/kyku/action/internal/tfinstall"
)

// Policy is the operator's policy: the first rule whose globs match a
// repository decides what it may use; a repository no rule matches may
// use nothing.
type Policy struct {
	Rules []Rule `yaml:"repositories"`
}

// Rule grants the repositories its globs match.
type Rule struct {
	// Match lists owner/repo globs (path.Match syntax, case-insensitive),
	// e.g. "acme/*".
	Match []string `yaml:"match"`
	// Buckets are the S3 buckets these repositories may keep state in.
	Buckets []Bucket `yaml:"buckets"`
	// Providers are the provider names they may use (e.g. aws; sim only
	// for tests and demos).
	Providers []string `yaml:"providers"`
	// AllowEndpoint lets their configs set `endpoint` (backend or
	// provider): off, a repository could point Kyku at an internal address.
	AllowEndpoint bool `yaml:"allow-endpoint"`
	// AllowProfile lets their configs pick an AWS `profile` of the bot's
	// host: off by default.
	AllowProfile bool `yaml:"allow-profile"`
	// AllowImport lets their configs `import` objects with a provider that
	// acts with the bot's own credentials (hetzner, or aws on a bucket
	// without a role): off, an import could adopt any object those
	// credentials reach — another tenant's, the operator's — and a later
	// apply could destroy it. With a bucket role, aws imports act with the
	// role and need no grant.
	AllowImport bool `yaml:"allow-import"`
	// TerraformProviders are the Terraform provider sources their
	// configurations may declare under providers: ("hashicorp/null",
	// "registry.opentofu.org/hashicorp/aws"): a provider binary runs with
	// what its configuration gives it, so a repository gets none the
	// operator did not list.
	TerraformProviders []string `yaml:"terraform-providers"`
	// ProviderGrants say what each of those providers gets in its sandbox
	// (grants.go): a provider without one gets nothing of the bot's.
	ProviderGrants ProviderGrants `yaml:"provider-grants"`
}

// Bucket is one bucket a rule grants and the IAM role Kyku assumes to use
// it ("" uses the bot's own credentials).
type Bucket struct {
	Name string `yaml:"name"`
	Role string `yaml:"role"`
	// TerraformKeys is the prefix the keys of the Terraform roots' states
	// in this bucket must start with (ConfineTerraform): the repository's
	// namespace "repo.<ID>/" when empty.
	TerraformKeys string `yaml:"terraform-keys"`
}

var (
	roleRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^arn:aws[a-z-]*:iam::[0-9]{12}:role/[A-Za-z0-9+=,.@_/-]{1,512}$`)
	})
	bucketRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)
	})
	nameRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)
	})
)

// Minimal is the smallest useful policy, shown when there is none.
const Minimal = `repositories: [{match: ["acme/*"], buckets: [{name: acme-kyku-state}], providers: [aws]}]`

// Parse reads a policy file (name is used in messages). Every problem is
// reported at once as "NAME:LINE:COL: key.path: message": unknown keys
// (with a did-you-mean), wrong types, bad values, and a policy that
// grants nothing (no rule gives a provider, so no plan could ever run).
func Parse(name string, data []byte) (*Policy, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if rest, ok := strings.CutPrefix(msg, "line "); ok {
			return nil, fmt.Errorf("%s:%s", name, rest) // "3: mapping values are not allowed…"
		}
		return nil, fmt.Errorf("%s: %s", name, msg)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s:1:1: the policy is empty: it grants nothing; a minimal one is %s", name, Minimal)
	}
	c := &checker{file: name, at: positions{}}
	c.walk(doc.Content[0], "", policyShape)
	if err := errors.Join(c.errs...); err != nil {
		return nil, err
	}
	var p Policy
	if err := doc.Content[0].Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err) // unreachable: the walk checked every type
	}
	root := doc.Content[0]
	bad := func(path, format string, args ...any) {
		n := root
		for k := path; k != ""; k = parent(k) {
			if at, ok := c.at[k]; ok {
				n = at
				break
			}
		}
		c.errorf(n, path, format, args...)
	}
	if len(p.Rules) == 0 {
		bad("repositories", "the policy lists no repositories: it grants nothing; a minimal one is %s", Minimal)
	}
	grants := false
	for i, r := range p.Rules {
		at := fmt.Sprintf("repositories[%d]", i)
		grants = grants || len(r.Providers) > 0 || len(r.TerraformProviders) > 0
		if len(r.Match) == 0 {
			bad(at+".match", "lists no owner/repo glob such as acme/*")
		}
		for j, g := range r.Match {
			if _, err := path.Match(strings.ToLower(g), ""); err != nil || strings.Count(g, "/") != 1 {
				bad(fmt.Sprintf("%s.match[%d]", at, j), "%q is not an owner/repo glob such as acme/*", g)
			}
		}
		for j, b := range r.Buckets {
			if !bucketRE().MatchString(b.Name) {
				bad(fmt.Sprintf("%s.buckets[%d].name", at, j), "%q is not an S3 bucket name", b.Name)
			}
			if b.Role != "" && !roleRE().MatchString(b.Role) {
				bad(fmt.Sprintf("%s.buckets[%d].role", at, j), "%q is not an IAM role ARN such as arn:aws:iam::123456789012:role/kyku", b.Role)
			}
			if k := b.TerraformKeys; k != "" && (!strings.HasSuffix(k, "/") || strings.HasPrefix(k, "/") || slices.Contains(strings.Split(k, "/"), "..")) {
				bad(fmt.Sprintf("%s.buckets[%d].terraform-keys", at, j), "%q is not a key prefix such as team-a/ (relative, ending in /, no ..)", k)
			}
		}
		for j, pr := range r.Providers {
			if !nameRE().MatchString(pr) {
				bad(fmt.Sprintf("%s.providers[%d]", at, j), "%q is not a provider name such as aws", pr)
			}
		}
		for j, src := range r.TerraformProviders {
			if _, err := tfinstall.ParseSource(src); err != nil {
				bad(fmt.Sprintf("%s.terraform-providers[%d]", at, j), "%v", err)
			}
		}
		checkGrants(r, func(key, format string, args ...any) { bad(at+"."+key, format, args...) })
	}
	if len(p.Rules) > 0 && !grants {
		bad("repositories", "no rule lists providers or terraform-providers: the policy grants nothing, so every plan would be refused")
	}
	if err := errors.Join(c.errs...); err != nil {
		return nil, err
	}
	return &p, nil
}

// parent is the key path above path: "a[0].b" → "a[0]" → "a" → "".
func parent(path string) string {
	if i := strings.LastIndexAny(path, ".["); i >= 0 {
		return path[:i]
	}
	return ""
}

// Grant is what a policy allows one repository.
type Grant struct {
	Repo string // "owner/repo", as the repository is named (for display and the policy's globs)
	// ID is the repository's numeric ID: its namespace is keyed by it, so
	// a renamed repository keeps its state and one registered again under
	// an old name does not inherit it.
	ID int64
	// Governed is set when a policy decided this grant: Buckets and
	// Providers are then exhaustive. Without a policy (Governed false) any
	// bucket may be named, but no provider may be used: every provider the
	// bot has acts with the bot's own credentials (aws, hetzner) or disk
	// (sim), so only a policy can hand them to a repository.
	Governed      bool
	Matched       bool // a rule matched (always false without a policy)
	Buckets       []Bucket
	Providers     []string
	AllowEndpoint bool
	AllowProfile  bool
	AllowImport   bool
	// TerraformProviders are the provider sources granted (as written in
	// the policy); see AllowsSource.
	TerraformProviders []string
	// ProviderGrants are what each of them gets in its sandbox.
	ProviderGrants ProviderGrants
}

// For is the grant of repository owner/repo (numeric ID id): the first
// rule that matches, an empty grant when none does, and the defaults when
// p is nil.
func (p *Policy) For(owner, repo string, id int64) Grant {
	g := Grant{Repo: owner + "/" + repo, ID: id}
	if p == nil {
		return g
	}
	g.Governed = true
	full := strings.ToLower(owner + "/" + repo)
	for _, r := range p.Rules {
		if slices.ContainsFunc(r.Match, func(glob string) bool {
			ok, err := path.Match(strings.ToLower(glob), full)
			return err == nil && ok
		}) {
			g.Matched = true
			g.Buckets, g.Providers = r.Buckets, r.Providers
			g.AllowEndpoint, g.AllowProfile, g.AllowImport = r.AllowEndpoint, r.AllowProfile, r.AllowImport
			g.TerraformProviders, g.ProviderGrants = r.TerraformProviders, r.ProviderGrants
			return g
		}
	}
	return g
}

// Namespace is the key prefix every object of the repository lives under:
// "repo.<numeric ID>" (e.g. "repo.1296269"). A GitHub owner name holds no
// ".", so no namespace keyed by a name ever equals one keyed by an ID.
// "" when the ID is unknown (Confine refuses).
func (g Grant) Namespace() string {
	if g.ID <= 0 {
		return ""
	}
	return "repo." + strconv.FormatInt(g.ID, 10)
}

// LegacyNamespace is where the repository's objects lived while namespaces
// were keyed by its name: "<owner>/<repo>" in lower case. The bot moves
// what it finds there into Namespace once.
func (g Grant) LegacyNamespace() string {
	return strings.ToLower(g.Repo)
}

// AllowsProvider reports whether the repository may use provider name:
// never without a policy (fail closed), otherwise when its rule lists it.
func (g Grant) AllowsProvider(name string) bool {
	return g.Governed && slices.Contains(g.Providers, name)
}

// AllowsSource reports whether the repository may use the Terraform
// provider at source (any spelling of one address: a source without host
// is on registry.opentofu.org): never without a policy, otherwise when its
// rule lists it.
func (g Grant) AllowsSource(source string) bool {
	want, err := tfinstall.ParseSource(source)
	if err != nil || !g.Governed {
		return false
	}
	for _, s := range g.TerraformProviders {
		if got, err := tfinstall.ParseSource(s); err == nil && got == want {
			return true
		}
	}
	return false
}

// Bucket returns the granted bucket called name.
func (g Grant) Bucket(name string) (Bucket, bool) {
	if !g.Governed {
		return Bucket{Name: name}, true
	}
	i := slices.IndexFunc(g.Buckets, func(b Bucket) bool { return b.Name == name })
	if i < 0 {
		return Bucket{}, false
	}
	return g.Buckets[i], true
}
