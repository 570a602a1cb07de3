package tenancy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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

// Parse reads a policy file (name is used in messages). Unknown keys,
// wrong types and bad values are errors naming the file and line.
func Parse(name string, data []byte) (*Policy, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var p Policy
	if err := dec.Decode(&p); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: the policy is empty (no repositories)", name)
		}
		return nil, fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var errs []error
	bad := func(i int, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: repositories[%d]: %s", name, i, fmt.Sprintf(format, args...)))
	}
	if len(p.Rules) == 0 {
		errs = append(errs, fmt.Errorf("%s: the policy lists no repositories", name))
	}
	for i, r := range p.Rules {
		if len(r.Match) == 0 {
			bad(i, "match lists no owner/repo glob")
		}
		for _, g := range r.Match {
			if _, err := path.Match(strings.ToLower(g), ""); err != nil || strings.Count(g, "/") != 1 {
				bad(i, "match %q is not an owner/repo glob such as acme/*", g)
			}
		}
		for _, b := range r.Buckets {
			if !bucketRE().MatchString(b.Name) {
				bad(i, "bucket %q is not an S3 bucket name", b.Name)
			}
			if b.Role != "" && !roleRE().MatchString(b.Role) {
				bad(i, "role %q of bucket %s is not an IAM role ARN", b.Role, b.Name)
			}
		}
		for _, pr := range r.Providers {
			if !nameRE().MatchString(pr) {
				bad(i, "provider %q is not a provider name", pr)
			}
		}
		for _, src := range r.TerraformProviders {
			if _, err := tfinstall.ParseSource(src); err != nil {
				bad(i, "terraform-providers: %v", err)
			}
		}
		for _, msg := range checkGrants(r) {
			bad(i, "%s", msg)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &p, nil
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
