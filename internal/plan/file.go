package plan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kyku/action/internal/value"
)

// A plan file verifies itself. Encode writes the plan as indented JSON
// whose first member is
//
//	"digest": "<sha256, lowercase hex>"
//
// the sha256 of the compact JSON of everything after it: the plan without
// the digest member, as json.Marshal writes it (struct fields in order, map
// keys sorted). That covers everything apply uses: the changes and their
// counters, the embedded configuration, the variables' hash, the state's
// lineage and serial, the provider and the backend. Decode compacts the
// bytes it is given, takes the digest member off and checks the rest
// against it, so an edit, a truncation or a file Kyku did not write is
// refused before anything is decoded into a plan; then it checks that the
// counters are the changes' and that the embedded configuration hashes to
// the recorded config hash (once given its write-only values again, when
// the file left them out: writeonly.go).
//
// The digest is a checksum, not a signature: anyone who can write the file
// can compute it again. What makes a saved plan safe to apply is that the
// engine plans its configuration again against the current state and
// refuses it unless the changes are the same (see engine.Apply).

// digestKey starts every plan file's compact form.
const digestKey = `{"digest":"`

// Encode returns the plan file bytes.
func Encode(p *Plan) ([]byte, error) {
	body, err := json.Marshal(savedForm(p))
	if err != nil {
		return nil, fmt.Errorf("encode plan: %w", err)
	}
	sum := sha256.Sum256(body)
	compact := make([]byte, 0, len(body)+len(digestKey)+2*sha256.Size+2)
	compact = append(compact, digestKey...)
	compact = hex.AppendEncode(compact, sum[:])
	compact = append(compact, '"')
	if len(body) > 2 { // not "{}": a member follows
		compact = append(compact, ',')
	}
	compact = append(compact, body[1:]...)
	var out bytes.Buffer
	out.Grow(len(compact) + len(compact)/4)
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return nil, fmt.Errorf("encode plan: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// FileDigest is the digest a plan file written by Encode carries.
func FileDigest(p *Plan) (string, error) {
	body, err := json.Marshal(savedForm(p))
	if err != nil {
		return "", fmt.Errorf("digest plan: %w", err)
	}
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:]), nil
}

// ErrNotVerified is wrapped by Decode's errors for a file that does not
// verify: damaged, truncated, edited, or not written by Kyku.
var ErrNotVerified = errors.New("plan file does not verify")

// Decode parses a plan file, refusing other format versions and any file
// that does not verify (see Encode); name is used in error messages, each
// one line.
func Decode(name string, data []byte) (*Plan, error) {
	var compact bytes.Buffer
	compact.Grow(len(data))
	if err := json.Compact(&compact, data); err != nil {
		return nil, fmt.Errorf("%s: not a complete kyku plan file (truncated or damaged: %v; %w)", name, err, ErrNotVerified)
	}
	c := compact.Bytes()
	var probe struct {
		FormatVersion *int `json:"formatVersion"`
	}
	if err := json.Unmarshal(c, &probe); err != nil {
		return nil, fmt.Errorf("%s: not a kyku plan file: %w", name, err)
	}
	if probe.FormatVersion == nil {
		return nil, fmt.Errorf("%s: not a kyku plan file: no formatVersion", name)
	}
	if *probe.FormatVersion != FormatVersion {
		return nil, fmt.Errorf("%s: plan format %d is not supported (this kyku reads %d)", name, *probe.FormatVersion, FormatVersion)
	}
	body, err := verify(c)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; plan again", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: decode plan: %w", name, err)
	}
	for i := range p.Changes {
		for j := range p.Changes[i].Properties {
			pc := &p.Changes[i].Properties[j]
			pc.Old, pc.New = value.Normalize(pc.Old), value.Normalize(pc.New)
		}
	}
	for _, ocs := range [][]OutputChange{p.OutputChanges, p.UnchangedOutputs} {
		for i := range ocs {
			ocs[i].Old, ocs[i].New = value.Normalize(ocs[i].Old), value.Normalize(ocs[i].New)
		}
	}
	if p.Config != nil {
		for i, r := range p.Config.Resources {
			if r == nil {
				return nil, fmt.Errorf("%s: decode plan: config resource %d is null", name, i)
			}
			// A template reading resources plainly is written in Kyku's
			// reference form ("db-${main-vpc}"): read it as one again.
			r.Properties = value.ReadTemplates(value.Normalize(r.Properties)).(map[string]any)
			if r.Properties == nil {
				r.Properties = map[string]any{}
			}
		}
		for i, o := range p.Config.Outputs {
			if o == nil {
				return nil, fmt.Errorf("%s: decode plan: config output %d is null", name, i)
			}
			o.Value = value.ReadTemplates(value.Normalize(o.Value))
		}
	}
	if err := consistent(&p); err != nil {
		return nil, fmt.Errorf("%s: %w (%w); plan again", name, err, ErrNotVerified)
	}
	return &p, nil
}

// verify checks the digest member that starts the compact plan file c and
// returns the plan's own JSON (the digest member taken off).
func verify(c []byte) ([]byte, error) {
	const n = len(digestKey) + 2*sha256.Size + 1 // the key, the hex digits, the closing quote
	if !bytes.HasPrefix(c, []byte(digestKey)) || len(c) < n+1 {
		return nil, fmt.Errorf("the plan file carries no digest (it was not written by this kyku, or was rewritten since; %w)", ErrNotVerified)
	}
	want := c[len(digestKey) : n-1]
	body := make([]byte, 0, len(c)-n+1)
	body = append(body, '{')
	switch rest := c[n:]; {
	case rest[0] == ',':
		body = append(body, rest[1:]...)
	case len(rest) == 1 && rest[0] == '}':
		body = append(body, '}')
	default:
		return nil, fmt.Errorf("the plan file's digest is malformed (%w)", ErrNotVerified)
	}
	sum := sha256.Sum256(body)
	if got := hex.EncodeToString(sum[:]); got != string(want) {
		return nil, fmt.Errorf("the plan file does not match its digest (sha256 %s…, the file says %.12s…): it was edited or damaged after kyku wrote it (%w)",
			got[:12], want, ErrNotVerified)
	}
	return body, nil
}

// consistent checks what the digest cannot: that the counters are the
// changes' and the embedded configuration is the one the config hash names.
func consistent(p *Plan) error {
	stored := p.Counters
	p.Count()
	if p.Counters != stored {
		return fmt.Errorf("its counters (%d to create, %d to change, %d to replace, %d to destroy) are not its changes' (%d, %d, %d, %d)",
			stored.Create, stored.Update, stored.Replace, stored.Destroy, p.Counters.Create, p.Counters.Update, p.Counters.Replace, p.Counters.Destroy)
	}
	if p.Config != nil && !p.Redacted && p.SecretsHash == "" {
		return errors.New("it has no secretsHash (written by an older kyku, or edited)")
	}
	// A configuration without its write-only values is checked once they
	// are given again (Plan.WithWriteOnly); one with them is not a file
	// Kyku wrote.
	if len(p.WriteOnly) > 0 && p.holdsWriteOnly() {
		return errors.New("its embedded configuration holds values of write-only attributes, which kyku never writes to a plan file")
	}
	if p.Config != nil && !p.Redacted && len(p.WriteOnly) == 0 && (p.Config.Hash() != p.ConfigHash || p.Config.SecretsHash() != p.SecretsHash) {
		return errors.New("its embedded configuration does not hash to its configHash and secretsHash")
	}
	return nil
}
