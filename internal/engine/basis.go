package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// RefreshMode says which objects of the state a plan reads from the
// cloud (reads.go).
type RefreshMode int

const (
	// RefreshChanged reads what the change touches (the default).
	RefreshChanged RefreshMode = iota
	// RefreshAll reads every object, as Terraform's plan does (the drift
	// schedule's plans).
	RefreshAll
	// RefreshNone reads nothing, as Terraform's -refresh=false: what the
	// change touches is planned against state.
	RefreshNone
)

func (m RefreshMode) String() string {
	switch m {
	case RefreshAll:
		return "all"
	case RefreshNone:
		return "none"
	}
	return "changed"
}

// ParseRefreshMode reads --refresh's value: changed, all or none.
func ParseRefreshMode(s string) (RefreshMode, error) {
	for _, m := range []RefreshMode{RefreshChanged, RefreshAll, RefreshNone} {
		if s == m.String() {
			return m, nil
		}
	}
	switch s { // Terraform's -refresh=true and -refresh=false
	case "true":
		return RefreshAll, nil
	case "false":
		return RefreshNone, nil
	}
	return RefreshChanged, fmt.Errorf("--refresh=%s: want changed, all or none (or Terraform's true, all, and false, none)", s)
}

// basisOf is what resource r, its properties resolved to props, is
// planned from: digests of its configuration and of its provider's, and
// that provider's version. ok is false when props cannot be digested (a
// value not known yet).
func (e *Engine) basisOf(cfg *config.Config, r *config.Resource, props map[string]any, readAt time.Time) (*state.Basis, bool) {
	d, ok := r.Digest(props)
	if !ok {
		return nil, false
	}
	pd, version := e.providerBasis(cfg, r.Type)
	return &state.Basis{Config: d, Provider: pd, Version: version, ReadAt: readAt.UTC()}, true
}

// providerBasis is a digest of the configuration of the provider that
// serves typ (a Terraform provider's block, or Kyku's provider: name
// and settings), and its version; computed once per configuration and
// type.
func (e *Engine) providerBasis(cfg *config.Config, typ string) (digest, version string) {
	k := basisKey{cfg, typ}
	if v, ok := e.bases.Load(k); ok {
		b := v.([2]string)
		return b[0], b[1]
	}
	digest, version = e.providerBasisOf(cfg, typ)
	e.bases.Store(k, [2]string{digest, version})
	return digest, version
}

// basisKey names a provider basis computed: of a configuration and type.
type basisKey struct {
	cfg *config.Config
	typ string
}

func (e *Engine) providerBasisOf(cfg *config.Config, typ string) (digest, version string) {
	ts := e.provider.Schema(typ)
	if pp := cfg.PluginProvider(ts.Provider); pp != nil && ts.OwnState {
		return pp.Digest(), ts.Version
	}
	if ts.OwnState { // served in process (OpenTofu's built-in provider): by its name
		return digestText("provider " + ts.Provider), ts.Version
	}
	if ts.Version == "" {
		ts.Version = e.opts.Version // Kyku's own types: Kyku is their provider
	}
	return cfg.Provider.Digest(), ts.Version
}

func digestText(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// attrDigests are digests of each top-level attribute of o (a Kyku
// type's properties and outputs, a Terraform provider's attributes),
// compared at apply with the object read again (precheck.go). Values
// are digested, never kept.
func attrDigests(o provider.Object) map[string]string {
	out := make(map[string]string, len(o.Properties)+len(o.Outputs))
	add := func(prefix string, m map[string]any) {
		for k, v := range m {
			b, err := value.AppendJSON(nil, v)
			if err != nil {
				b = []byte(fmt.Sprintf("%T", v))
			}
			sum := sha256.Sum256(append([]byte(k+"\x00"), b...))
			out[prefix+k] = hex.EncodeToString(sum[:12])
		}
	}
	if o.Stored != nil { // a Terraform provider's object: its attributes are both
		add("", o.Outputs)
		return out
	}
	add("", o.Properties)
	add("outputs.", o.Outputs)
	return out
}

// differing names the attributes whose digests differ between was and
// now, sorted.
func differing(was, now map[string]string) []string {
	var out []string
	for k, d := range was {
		if now[k] != d {
			out = append(out, k)
		}
	}
	for k := range now {
		if _, ok := was[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
