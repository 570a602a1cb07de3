package config

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"sync"

	"github.com/kyku/action/internal/diag"
)

// Config is a loaded, validated configuration: the desired resources (with
// defaults applied and references kept as "${…}" strings) and outputs.
type Config struct {
	Files      []string       `json:"files,omitempty"`
	Provider   ProviderConfig `json:"provider"`
	Backend    *Backend       `json:"backend,omitempty"`
	Encryption *Encryption    `json:"encryption,omitempty"`
	Resources  []*Resource    `json:"resources"` // sorted by name
	Outputs    []*Output      `json:"outputs,omitempty"`

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
	Name          string         `json:"name"`
	Type          string         `json:"type"`
	Properties    map[string]any `json:"properties"`
	Protect       bool           `json:"protect,omitempty"`
	IgnoreChanges []string       `json:"ignoreChanges,omitempty"`
	DependsOn     []string       `json:"dependsOn,omitempty"`
	// AutoFrom names the Vpc that injected this subnet (auto-subnets).
	AutoFrom string `json:"autoFrom,omitempty"`

	Pos     diag.Pos            `json:"-"` // of the resource's key
	PropPos map[string]diag.Pos `json:"-"` // of each property's key
}

// Output is a named value read from resources after apply.
type Output struct {
	Name  string   `json:"name"`
	Value any      `json:"value"` // canonical value holding references
	Pos   diag.Pos `json:"-"`
}

// Resource returns the resource called name, or nil.
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

// Add inserts r keeping Resources sorted by name.
func (c *Config) Add(r *Resource) {
	i := sort.Search(len(c.Resources), func(i int) bool { return c.Resources[i].Name >= r.Name })
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
func (c *Config) Hash() string {
	b, err := c.appendCanonical(make([]byte, 0, 128*len(c.Resources)+256))
	if err != nil {
		// Canonical values always marshal; a failure is a programming error.
		panic("config hash: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
