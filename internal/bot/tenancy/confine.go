package tenancy

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
)

// Confined is a configuration confined to a grant, ready to open.
type Confined struct {
	// Config is a copy of the configuration whose backend keys live under
	// the repository's namespace: an s3 backend's prefix, or a local
	// backend's (relative) path, is "<namespace>/<the config's own>"; a
	// config without a backend gets a local one at "<namespace>". A sim
	// provider's dir is likewise "<namespace>/<the config's own>",
	// relative: the opener resolves it under its own root.
	Config *config.Config
	// Role is the IAM role to assume for the backend's bucket ("" for the
	// bot's own credentials).
	Role string
	// Legacy is where the backend's objects lived while namespaces were
	// keyed by the repository's name: the prefix (s3, gcs, spaces) or
	// relative path (local) "<owner>/<repo>/<the config's own>"; "" for
	// an http backend, which has no namespace. LegacySimDir is the same
	// for the sim's dir ("" without the sim).
	Legacy, LegacySimDir string
}

// Confine checks cfg against g and returns the confined copy. Every
// problem is reported at once, with the config's file and line: a provider
// the grant does not allow, an `endpoint` or `profile` override it does
// not allow, a bucket it does not grant, a prefix, path or sim dir that is
// absolute or climbs with "..". cfg itself is not changed.
func Confine(cfg *config.Config, g Grant) (*Confined, error) {
	var ds diag.Diagnostics
	ns, legacy := g.Namespace(), g.LegacyNamespace()
	if ns == "" {
		ds.Add(cfg.Provider.Pos, "the repository %s has no numeric ID, which its namespace is keyed by", g.Repo)
		return nil, ds
	}
	who := "for " + g.Repo + " by the bot's policy"
	if !g.Governed {
		who = "in the bot without an operator policy (KYKU_BOT_POLICY)"
	} else if !g.Matched {
		ds.Add(cfg.Provider.Pos, "the bot's policy (KYKU_BOT_POLICY) grants %s nothing: ask the bot's operator to add it", g.Repo)
		return nil, ds
	}
	out := &Confined{Config: cfg.Clone()}

	name := cfg.Provider.Name
	if name == "" {
		name = "sim" // what workspace.Provider picks
	}
	if !g.AllowsProvider(name) {
		ds.Add(cfg.Provider.Pos, "provider %q is not allowed %s%s", name, who, providerHint(name, g))
	}
	for _, pp := range cfg.Providers {
		if !g.AllowsSource(pp.Source) {
			ds.Add(pp.SourcePos, "Terraform provider %q (source %s) is not allowed %s; the operator allows it with terraform-providers: [%s] in a rule of KYKU_BOT_POLICY matching %s",
				pp.Name, pp.Source, who, pp.Source, g.Repo)
		}
	}
	settings := out.Config.Provider.Settings
	if _, ok := settings["endpoint"]; ok && !g.AllowEndpoint {
		ds.Add(cfg.Provider.Pos, "provider setting endpoint is not allowed %s", who)
	}
	if _, ok := settings["profile"]; ok && !g.AllowProfile {
		ds.Add(cfg.Provider.Pos, "provider setting profile is not allowed %s: the bot's AWS profiles are not the repository's", who)
	}
	if r, ok := settings["region"]; ok && !regionRE().MatchString(r) {
		ds.Add(cfg.Provider.Pos, "provider setting region %q is not an AWS region name", r)
	}
	if name == "sim" {
		if settings == nil {
			settings = map[string]string{}
			out.Config.Provider.Settings = settings
		}
		dir, err := under(ns, settings["dir"], "sim")
		if err != nil {
			ds.Add(cfg.Provider.Pos, "provider setting dir: %v", err)
		}
		out.LegacySimDir, _ = under(legacy, settings["dir"], "sim")
		settings["dir"] = dir
	}

	b := cfg.Backend
	switch {
	case b == nil || b.Type == "" || b.Type == "local":
		nb := config.Backend{Type: "local"}
		if b != nil {
			nb = *b
			nb.Type = "local"
		}
		p, err := under(ns, nb.Path, "")
		if err != nil {
			ds.Add(nb.Pos, "backend path: %v", err)
		}
		out.Legacy, _ = under(legacy, nb.Path, "")
		nb.Path = p
		out.Config.Backend = &nb
	case b.Type == "s3" || b.Type == "spaces" || b.Type == "gcs":
		nb := *b
		if nb.Endpoint != "" && !g.AllowEndpoint {
			ds.Add(b.Pos, "backend endpoint is not allowed %s", who)
		}
		switch {
		case b.Type == "s3" && nb.Region != "" && !regionRE().MatchString(nb.Region):
			ds.Add(b.Pos, "backend region %q is not an AWS region name", nb.Region)
		case b.Type == "spaces" && !spacesRegionRE().MatchString(nb.Region):
			ds.Add(b.Pos, "backend region %q is not a Spaces region name (such as fra1)", nb.Region)
		}
		if b.Type == "spaces" && nb.Lock != nil && !*nb.Lock {
			ds.Add(b.Pos, "backend lock: false is not allowed in the bot: it serves many runs at once, and state without a lock is lost to the first race")
		}
		bucket, ok := g.Bucket(nb.Bucket)
		if !ok {
			ds.Add(b.Pos, "bucket %q is not granted to %s by the bot's policy", nb.Bucket, g.Repo)
		}
		if bucket.Role != "" && b.Type != "s3" {
			ds.Add(b.Pos, "bucket %q is granted with an IAM role, which only an s3 backend can assume: use type s3, or ask the bot's operator to grant it without a role", nb.Bucket)
		}
		out.Role = bucket.Role
		p, err := under(ns, nb.Prefix, "")
		if err != nil {
			ds.Add(b.Pos, "backend prefix: %v", err)
		}
		out.Legacy, _ = under(legacy, nb.Prefix, "")
		nb.Prefix = p
		out.Config.Backend = &nb
	case b.Type == "http":
		// An http backend is an address of the repository's choosing: the
		// bot would send state (and a password) wherever it points, and no
		// namespace can be imposed on a URL. It is an endpoint override.
		if !g.AllowEndpoint {
			ds.Add(b.Pos, "backend type http is not allowed %s: its address is an endpoint of the repository's choosing (the policy's allow-endpoint)", who)
		}
		nb := *b
		out.Config.Backend = &nb
	default:
		ds.Add(b.Pos, "backend type %q is not one the bot opens", b.Type)
	}
	confineImports(&ds, cfg, g, name, out.Role, who)
	for e := cfg.Encryption; e != nil; e = e.Fallback {
		if e.Key == "aws-kms" && out.Role == "" {
			// The opener would reach KMS with the bot's own credentials,
			// which may decrypt with any tenant's key they are granted.
			ds.Add(e.Pos, "encryption key aws-kms needs the repository's role: the bot never uses its own AWS credentials for a repository's KMS key; "+
				"ask the bot's operator to grant an s3 bucket with a role (KYKU_BOT_POLICY: repositories[].buckets[].role), or use key passphrase")
		}
	}
	if err := ds.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// providerHint says which policy key would allow provider name.
func providerHint(name string, g Grant) string {
	var acts string
	switch name {
	case "aws":
		acts = ": it would act with the bot's own AWS credentials"
	case "hetzner":
		acts = ": it would act with the bot's own HCLOUD_TOKEN"
	case "sim":
		acts = ": it keeps its cloud on the bot's disk"
	}
	hint := "; the operator allows it with providers: [" + name + "] in a rule of KYKU_BOT_POLICY matching " + g.Repo
	if name == "aws" {
		hint += " (give its bucket a role, so it acts with the repository's role)"
	}
	if g.Governed {
		return hint
	}
	return acts + hint
}

// confineImports refuses `import` entries that would act with the bot's
// own credentials: an import reads (when planning) and adopts (when
// applying) whatever object the provider's credentials reach, another
// tenant's or the operator's, and a later apply can destroy it. Allowed
// with the repository's role (aws on a bucket granted with a role), with
// the sim (its cloud is under the repository's namespace), or with the
// policy's explicit allow-import.
func confineImports(ds *diag.Diagnostics, cfg *config.Config, g Grant, provider, role, who string) {
	if len(cfg.Imports) == 0 || g.AllowImport || provider == "sim" || (provider == "aws" && role != "") {
		return
	}
	creds := "the bot's own credentials"
	switch provider {
	case "aws":
		creds = "the bot's own AWS credentials (its bucket has no role)"
	case "hetzner":
		creds = "the bot's own HCLOUD_TOKEN"
	}
	for _, im := range cfg.Imports {
		ds.Add(im.Pos, "import of %s (id %s) is not allowed %s: it would adopt whatever object %s reach, another repository's included; "+
			"the operator allows it with a bucket role (repositories[].buckets[].role, aws) or allow-import: true in KYKU_BOT_POLICY",
			im.To, im.ID, who, creds)
	}
}

// regionRE is an AWS region name: a region becomes part of a host name, so
// nothing else may pass (it could name another host).
var regionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]{1,2}$`)
})

// spacesRegionRE is a DigitalOcean Spaces region (fra1, nyc3): it becomes
// the host <region>.digitaloceanspaces.com.
var spacesRegionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[a-z]{3}[0-9]$`)
})

// under joins ns and rel ("" → def), refusing a rel that is absolute,
// climbs with "..", or holds an empty, "." or backslash segment.
func under(ns, rel, def string) (string, error) {
	if rel == "" {
		rel = def
	}
	if rel == "" {
		return ns, nil
	}
	if strings.HasPrefix(rel, "/") || strings.Contains(rel, `\`) || (len(rel) > 1 && rel[1] == ':') {
		return "", fmt.Errorf("%q is absolute: it is taken relative to the repository's namespace %s/", rel, ns)
	}
	for _, seg := range strings.Split(strings.TrimSuffix(rel, "/"), "/") {
		switch seg {
		case "..":
			return "", fmt.Errorf("%q climbs out of the repository's namespace %s/ with \"..\"", rel, ns)
		case "", ".":
			return "", fmt.Errorf("%q has an empty or \".\" segment", rel)
		}
	}
	return ns + "/" + strings.TrimSuffix(rel, "/"), nil
}
