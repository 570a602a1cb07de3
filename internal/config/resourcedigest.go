package config

import (
	"crypto/sha256"
	"encoding/hex"
)

// Digest is a digest of r planned with props, its properties with every
// reference resolved: its name, type, values, protect,
// create_before_destroy, ignore_changes, depends_on, what it marks
// sensitive, its provider, replace_triggered_by and conditions. Two plans
// that give a resource the same digest ask the same of it. Secret values
// are in the digest, never in clear. ok is false when props cannot be
// written (a value not yet known).
func (r *Resource) Digest(props map[string]any) (digest string, ok bool) {
	c := *r
	c.Properties = props
	if c.Properties == nil {
		c.Properties = map[string]any{}
	}
	b, err := appendResource(make([]byte, 0, 512), &c, &secretMask{})
	if err != nil {
		return "", false
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), true
}

// Digest is a digest of the provider configuration of Kyku's own types:
// its name and settings (secrets in the digest, never in clear).
func (p ProviderConfig) Digest() string {
	c := Config{Provider: p}
	b, err := c.appendCanonical(nil, &secretMask{}, func(b []byte) []byte { return b })
	if err != nil {
		panic("provider digest: " + err.Error()) // settings are strings: they always marshal
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Digest is a digest of a Terraform provider's configuration: its local
// name, source, version constraint and configuration block.
func (pp *PluginProvider) Digest() string {
	c := Config{Providers: []*PluginProvider{pp}}
	b, err := c.appendCanonical(nil, &secretMask{}, func(b []byte) []byte { return b })
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
