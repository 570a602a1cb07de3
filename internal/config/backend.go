package config

import (
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/kyku/action/internal/diag"
)

// backendTypes lists each backend type with the keys it takes (besides
// "type"). A key of another type is an error naming the types it belongs to.
var backendTypes = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"local":  {"path", "backupRetention", "leases"},
		"s3":     {"bucket", "prefix", "region", "endpoint", "usePathStyle", "kmsKeyId", "backupRetention", "leases"},
		"gcs":    {"bucket", "prefix", "backupRetention", "leases"},
		"spaces": {"bucket", "region", "prefix", "endpoint", "usePathStyle", "lock", "backupRetention", "leases"},
		"http":   {"address", "lockAddress", "unlockAddress", "username", "updateMethod", "lockMethod", "unlockMethod", "retryMax", "backupRetention"},
	}
})

// backendTypeNames is "gcs, http, local, s3, spaces".
func backendTypeNames() []string {
	names := make([]string, 0, len(backendTypes()))
	for t := range backendTypes() {
		names = append(names, t)
	}
	sort.Strings(names)
	return names
}

// allBackendKeys is every key any type takes, sorted, with "type".
func allBackendKeys() []string {
	seen := map[string]bool{"type": true}
	for _, keys := range backendTypes() {
		for _, k := range keys {
			seen[k] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// typesTaking lists the backend types that take key, e.g. "s3 or spaces".
func typesTaking(key string) string {
	var ts []string
	for _, t := range backendTypeNames() {
		for _, k := range backendTypes()[t] {
			if k == key {
				ts = append(ts, t)
			}
		}
	}
	if len(ts) == 1 {
		return "type " + ts[0]
	}
	return "types " + strings.Join(ts[:len(ts)-1], ", ") + " and " + ts[len(ts)-1]
}

func takes(typ, key string) bool {
	for _, k := range backendTypes()[typ] {
		if k == key {
			return true
		}
	}
	return false
}

// httpMethod is an HTTP method token.
var httpMethod = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Z]+$`)
})

func (p *parser) backend(k, v *yaml.Node) {
	if p.cfg.Backend != nil {
		p.diags.Add(p.pos(k), "duplicate \"backend\" (first defined at %s)", p.cfg.Backend.Pos)
		return
	}
	b := &Backend{Type: "local", Pos: p.pos(k)}
	p.cfg.Backend = b
	var pairs []pair
	if d := p.deref(v, "backend"); d != nil && d.Kind == yaml.ScalarNode {
		pairs = []pair{{&yaml.Node{Kind: yaml.ScalarNode, Value: "type", Line: k.Line, Column: k.Column}, d}}
	} else if pairs, _ = p.mapping(v, "backend", "mapping with \"type\""); pairs == nil {
		return
	}
	typePos := b.Pos
	for _, kv := range pairs {
		if kv.key.Value != "type" {
			continue
		}
		typePos = p.pos(kv.val)
		if t, ok := p.str(kv.val, "backend.type"); ok {
			if _, known := backendTypes()[t]; !known {
				names := backendTypeNames()
				p.diags.Add(p.pos(kv.val), "backend.type: unknown backend %q (expected one of: %s)%s", t, strings.Join(names, ", "), didYouMean(t, names))
				return
			}
			b.Type = t
		}
	}
	keyPos := map[string]diag.Pos{}
	for _, kv := range pairs {
		key, path := kv.key.Value, "backend."+kv.key.Value
		if key == "type" {
			continue
		}
		keyPos[key] = p.pos(kv.key)
		if !takes(b.Type, key) {
			if strings.Contains(","+strings.Join(allBackendKeys(), ",")+",", ","+key+",") {
				p.diags.Add(p.pos(kv.key), "backend: %q applies only to %s", key, typesTaking(key))
			} else {
				p.unknownKey(kv.key, "backend", append([]string{"type"}, backendTypes()[b.Type]...))
			}
			continue
		}
		p.backendKey(b, kv, key, path)
	}
	p.checkBackend(b, typePos, keyPos)
}

// backendKey sets one key the backend's type takes.
func (p *parser) backendKey(b *Backend, kv pair, key, path string) {
	h := &b.HTTP
	strs := map[string]*string{
		"path": &b.Path, "bucket": &b.Bucket, "prefix": &b.Prefix, "region": &b.Region, "endpoint": &b.Endpoint,
		"kmsKeyId": &b.KMSKeyID, "address": &h.Address, "lockAddress": &h.LockAddress, "unlockAddress": &h.UnlockAddress,
		"username": &h.Username, "updateMethod": &h.UpdateMethod, "lockMethod": &h.LockMethod, "unlockMethod": &h.UnlockMethod,
	}
	if dst, ok := strs[key]; ok {
		*dst, _ = p.str(kv.val, path)
		switch key {
		case "endpoint", "address", "lockAddress", "unlockAddress":
			if *dst != "" && !isHTTPURL(*dst) {
				p.diags.Add(p.pos(kv.val), "%s: %s is not an http:// or https:// URL", path, shownURL(*dst))
			}
		case "updateMethod", "lockMethod", "unlockMethod":
			if *dst != "" && !httpMethod().MatchString(*dst) {
				p.diags.Add(p.pos(kv.val), "%s: %q is not an HTTP method (e.g. POST, PUT, LOCK, DELETE)", path, *dst)
			}
		}
		return
	}
	switch key {
	case "usePathStyle":
		b.UsePathStyle, _ = p.boolean(kv.val, path)
	case "leases":
		if on, ok := p.boolean(kv.val, path); ok {
			b.Leases = &on
		}
	case "lock":
		if on, ok := p.boolean(kv.val, path); ok {
			b.Lock = &on
		}
	case "backupRetention", "retryMax":
		if n, ok := p.integer(kv.val, path); ok {
			if n < 0 {
				what := "0 (keep all) or more"
				if key == "retryMax" {
					what = "0 or more"
				}
				p.diags.Add(p.pos(kv.val), "%s: must be %s, got %v", path, what, n)
			}
			if key == "retryMax" {
				b.HTTP.RetryMax = int(n)
			} else {
				b.BackupRetention = int(n)
			}
		}
	}
}

// checkBackend reports what a type needs and does not have.
func (p *parser) checkBackend(b *Backend, pos diag.Pos, keyPos map[string]diag.Pos) {
	switch b.Type {
	case "s3", "gcs", "spaces":
		if b.Bucket == "" {
			p.diags.Add(pos, "backend: type %s needs a \"bucket\"", b.Type)
		}
	case "http":
		if b.HTTP.Address == "" {
			p.diags.Add(pos, "backend: type http needs an \"address\" (the state's URL)")
		}
		if b.HTTP.UnlockAddress != "" && b.HTTP.LockAddress == "" {
			p.diags.Add(keyPos["unlockAddress"], "backend: \"unlockAddress\" without \"lockAddress\" (the lock is taken at lockAddress)")
		}
	}
	if b.Type == "spaces" && b.Region == "" && b.Endpoint == "" {
		p.diags.Add(pos, "backend: type spaces needs a \"region\" (e.g. nyc3, fra1)")
	}
}

// shownURL is an address as a message may quote it: a URL may carry a
// token in its query string or a password before an '@', so neither is
// shown.
func shownURL(s string) string {
	cut := false
	if scheme, rest, ok := strings.Cut(s, "://"); ok {
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			rest, cut = rest[at+1:], true
		}
		s = scheme + "://" + rest
	}
	if i := strings.IndexAny(s, "?#@"); i >= 0 {
		s, cut = s[:i], true
	}
	if cut {
		s += "…"
	}
	return strconv.Quote(s)
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// encryptionKeys are the keys of "encryption:" and of its "fallback:".
var encryptionKeys = []string{"fallback", "key", "keyId", "region"}

// encryptionKinds are the values of encryption.key.
var encryptionKinds = []string{"aws-kms", "passphrase"}

func (p *parser) encryption(k, v *yaml.Node) {
	if p.cfg.Encryption != nil {
		p.diags.Add(p.pos(k), "duplicate \"encryption\" (first defined at %s)", p.cfg.Encryption.Pos)
		return
	}
	p.cfg.Encryption = p.encryptionAt(k, v, "encryption", true)
	if p.cfg.Encryption == nil {
		p.cfg.Encryption = &Encryption{Pos: p.pos(k)} // keeps a duplicate reported
	}
}

func (p *parser) encryptionAt(k, v *yaml.Node, path string, top bool) *Encryption {
	e := &Encryption{Pos: p.pos(k)}
	pairs, ok := p.mapping(v, path, `mapping with "key" (passphrase or aws-kms)`)
	if !ok {
		return nil
	}
	keyPos := e.Pos
	for _, kv := range pairs {
		sub := path + "." + kv.key.Value
		switch kv.key.Value {
		case "key":
			keyPos = p.pos(kv.val)
			if s, ok := p.str(kv.val, sub); ok {
				if s != "passphrase" && s != "aws-kms" {
					p.diags.Add(p.pos(kv.val), "%s: unknown key kind %q (expected passphrase or aws-kms)%s", sub, s, didYouMean(s, encryptionKinds))
				}
				e.Key = s
			}
		case "keyId":
			e.KeyID, _ = p.str(kv.val, sub)
		case "region":
			e.Region, _ = p.str(kv.val, sub)
		case "fallback":
			if !top {
				p.diags.Add(p.pos(kv.key), "%s: a fallback has no fallback of its own", path)
				continue
			}
			e.Fallback = p.encryptionAt(kv.key, kv.val, sub, false)
		default:
			p.unknownKey(kv.key, path, encryptionKeys)
		}
	}
	switch {
	case e.Key == "":
		p.diags.Add(e.Pos, "%s: missing \"key\" (passphrase or aws-kms)", path)
	case e.Key == "aws-kms" && e.KeyID == "":
		p.diags.Add(keyPos, "%s: key aws-kms needs a \"keyId\" (key ID, ARN or alias/NAME)", path)
	case e.Key == "passphrase" && (e.KeyID != "" || e.Region != ""):
		p.diags.Add(keyPos, "%s: key passphrase takes no keyId or region (the passphrase comes from KYKU_STATE_PASSPHRASE)", path)
	}
	return e
}
