package tenancy

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/kyku/action/internal/tfinstall"
)

// ProviderGrant is what one Terraform provider of the repositories a rule
// matches is given in its sandbox, where it otherwise has nothing of the
// bot's: no variable, no file, no way to the cloud's metadata service.
type ProviderGrant struct {
	// Source is the provider's (one of the rule's terraform-providers).
	Source string `yaml:"source"`
	// Env names the provider's variables and the bot's variables whose
	// values they take: {AWS_ACCESS_KEY_ID: ACME_AWS_ACCESS_KEY_ID}.
	Env map[string]string `yaml:"env"`
	// Files are files of the bot's host (absolute paths) the provider may
	// read, copied in at the same path.
	Files []string `yaml:"files"`
	// Metadata lets the provider reach the instance metadata addresses
	// (169.254.0.0/16, fd00:ec2::254…), which answer with the bot's own
	// machine's credentials.
	Metadata bool `yaml:"metadata"`
}

// ProviderGrants are a rule's grants, one per source.
type ProviderGrants []ProviderGrant

// For is the grant of the provider at source; a provider without one
// gets nothing (the zero grant).
func (gs ProviderGrants) For(source tfinstall.Source) ProviderGrant {
	for _, g := range gs {
		if s, err := tfinstall.ParseSource(g.Source); err == nil && s == source {
			return g
		}
	}
	return ProviderGrant{Source: source.String()}
}

// EnvNames are the provider's variables granted, sorted.
func (g ProviderGrant) EnvNames() []string {
	out := make([]string, 0, len(g.Env))
	for k := range g.Env {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var envNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// reservedEnv are the variables the sandbox and the plugin handshake set:
// a grant cannot give them.
func reservedEnv(name string) bool {
	switch n := strings.ToUpper(name); {
	case n == "TMPDIR", n == "HTTPS_PROXY", n == "HTTP_PROXY", n == "ALL_PROXY", n == "NO_PROXY",
		n == "TF_PLUGIN_MAGIC_COOKIE", strings.HasPrefix(n, "PLUGIN_"):
		return true
	}
	return false
}

// checkGrants reports every problem of rule r's provider-grants to bad,
// with the key path under the rule.
func checkGrants(r Rule, bad func(key, format string, args ...any)) {
	listed := map[tfinstall.Source]bool{}
	for _, s := range r.TerraformProviders {
		if src, err := tfinstall.ParseSource(s); err == nil {
			listed[src] = true
		}
	}
	seen := map[tfinstall.Source]bool{}
	for i, g := range r.ProviderGrants {
		at := fmt.Sprintf("provider-grants[%d]", i)
		src, err := tfinstall.ParseSource(g.Source)
		switch {
		case err != nil:
			bad(at+".source", "%v", err)
			continue
		case !listed[src]:
			bad(at+".source", "%s is not among the rule's terraform-providers", g.Source)
		case seen[src]:
			bad(at+".source", "%s is granted twice", g.Source)
		}
		seen[src] = true
		for _, k := range g.EnvNames() {
			switch v := g.Env[k]; {
			case !envNameRE().MatchString(k):
				bad(at+".env."+k, "%q is not a variable name", k)
			case !envNameRE().MatchString(v):
				bad(at+".env."+k, "%q is not a variable name", v)
			case reservedEnv(k):
				bad(at+".env."+k, "%s is set by the sandbox itself", k)
			}
		}
		for j, f := range g.Files {
			if !path.IsAbs(f) || path.Clean(f) != f {
				bad(fmt.Sprintf("%s.files[%d]", at, j), "%q is not a clean absolute path", f)
			}
		}
	}
}
