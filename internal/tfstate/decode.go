package tfstate

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"

	version "github.com/hashicorp/go-version"

	"github.com/kyku/action/internal/state"
)

// The wire form: what encoding/json reads of a version 4 state. Fields
// OpenTofu reads and drops (a resource's "each", anything unknown) are not
// read here either.
type (
	wireFile struct {
		// Version, EncryptedData and Kyku are read for versionProbe.
		Version          json.RawMessage       `json:"version"`
		EncryptedData    json.RawMessage       `json:"encrypted_data"`
		Kyku             json.RawMessage       `json:"metadata"`
		TerraformVersion string                `json:"terraform_version"`
		Serial           uint64                `json:"serial"`
		Lineage          string                `json:"lineage"`
		Outputs          map[string]wireOutput `json:"outputs"`
		Resources        []wireResource        `json:"resources"`
		CheckResults     []wireCheckResult     `json:"check_results"`
	}
	wireOutput struct {
		Value      json.RawMessage `json:"value"`
		Type       json.RawMessage `json:"type"`
		Sensitive  bool            `json:"sensitive"`
		Deprecated string          `json:"deprecated"`
	}
	wireResource struct {
		Module    string         `json:"module"`
		Mode      string         `json:"mode"`
		Type      string         `json:"type"`
		Name      string         `json:"name"`
		Provider  string         `json:"provider"`
		Instances []wireInstance `json:"instances"`
	}
	wireInstance struct {
		IndexKey              json.RawMessage   `json:"index_key"`
		Status                string            `json:"status"`
		Deposed               string            `json:"deposed"`
		Provider              string            `json:"provider"`
		SchemaVersion         uint64            `json:"schema_version"`
		Attributes            json.RawMessage   `json:"attributes"`
		AttributesFlat        map[string]string `json:"attributes_flat"`
		SensitiveAttributes   json.RawMessage   `json:"sensitive_attributes"`
		Private               *string           `json:"private"`
		Dependencies          []string          `json:"dependencies"`
		CreateBeforeDestroy   bool              `json:"create_before_destroy"`
		SkipDestroy           bool              `json:"skip_destroy"`
		Identity              json.RawMessage   `json:"identity"`
		IdentitySchemaVersion *uint64           `json:"identity_schema_version"`
	}
	wireCheckResult struct {
		ObjectKind string            `json:"object_kind"`
		ConfigAddr string            `json:"config_addr"`
		Status     string            `json:"status"`
		Objects    []wireCheckObject `json:"objects"`
	}
	wireCheckObject struct {
		ObjectAddr      string   `json:"object_addr"`
		Status          string   `json:"status"`
		FailureMessages []string `json:"failure_messages"`
	}
)

// Decode reads a state in format version 4. name (a path or an object key)
// starts every error, which names the field at fault (and its line and
// column when the JSON decoder stopped there). Errors wrap
// state.ErrCorrupt, or state.ErrUnsupportedVersion for another format
// version; empty data is ErrEmpty.
//
// What OpenTofu reads differently from how it writes it comes back as it
// writes it: the decoded File encodes to the bytes OpenTofu would write
// for the same data (outputs and sensitive paths through cty, attributes
// compacted).
func Decode(name string, data []byte) (*File, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrEmpty)
	}
	// One pass over the JSON (a state of thousands of instances is
	// megabytes), each resource decoded as it is read: the version is
	// read with the rest, and checked before anything else is. What the
	// wire reader gives up on (a resource that does not decode among
	// it) is decoded again through encoding/json, whose result stands.
	var w wireFile
	rs := &resourceList{}
	if !readWire(data, &w, rs.add) {
		return decodeJSON(name, data)
	}
	return fromWireChecked(name, &w, rs)
}

// decodeJSON is Decode through encoding/json. What does not decode is
// probed for its version first, as another version's shape is not a
// version 4 state's.
func decodeJSON(name string, data []byte) (*File, error) {
	var w wireFile
	if err := json.Unmarshal(data, &w); err != nil {
		if verr := checkVersion(name, data); verr != nil {
			return nil, verr
		}
		return nil, jsonError(name, data, err)
	}
	return fromWireChecked(name, &w, nil)
}

// fromWireChecked is fromWire once w's version is checked.
func fromWireChecked(name string, w *wireFile, rs *resourceList) (*File, error) {
	probe := versionProbe{Version: w.Version, TerraformVersion: w.TerraformVersion, EncryptedData: w.EncryptedData, Kyku: w.Kyku}
	if err := probe.check(name); err != nil {
		return nil, err
	}
	f, err := fromWire(w, rs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", name, state.ErrCorrupt, err)
	}
	return f, nil
}

// checkVersion refuses what is not a version 4 state: not a JSON object,
// no version, another version, or OpenTofu's encrypted envelope.
func checkVersion(name string, data []byte) error {
	var probe versionProbe
	if err := json.Unmarshal(data, &probe); err != nil {
		return jsonError(name, data, err)
	}
	return probe.check(name)
}

// versionProbe is what checkVersion reads of a state.
type versionProbe struct {
	Version          json.RawMessage `json:"version"`
	TerraformVersion string          `json:"terraform_version"`
	EncryptedData    json.RawMessage `json:"encrypted_data"`
	Kyku             json.RawMessage `json:"metadata"`
}

// check refuses what probe says is not a version 4 state.
func (probe *versionProbe) check(name string) error {
	switch {
	case probe.Version == nil && probe.EncryptedData != nil:
		return fmt.Errorf("%s: %w, which kyku does not read; decrypt it with tofu (state encryption's fallback) first", name, ErrEncrypted)
	case probe.Version == nil && probe.Kyku != nil:
		return fmt.Errorf("%s: %w: this is a kyku state, not a Terraform state (no \"version\")", name, state.ErrCorrupt)
	case probe.Version == nil:
		return fmt.Errorf("%s: %w: no \"version\": not a Terraform state", name, state.ErrCorrupt)
	}
	switch v := string(bytes.TrimSpace(probe.Version)); v {
	case "4":
		return nil
	case "1", "2", "3":
		return fmt.Errorf("%s: %w: format version %s, written by Terraform %s; kyku reads version 4: let tofu rewrite it first (tofu apply -refresh-only)",
			name, state.ErrUnsupportedVersion, v, orUnknown(probe.TerraformVersion))
	default:
		return fmt.Errorf("%s: %w: format version %s, written by %s; kyku reads version 4, as OpenTofu 1.12 writes it",
			name, state.ErrUnsupportedVersion, v, orUnknown(probe.TerraformVersion))
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown version"
	}
	return s
}

// fromWire is the File w holds; rs, when not nil, holds its resources
// decoded already (w.Resources is then not read).
func fromWire(w *wireFile, rs *resourceList) (*File, error) {
	if w.TerraformVersion != "" {
		if _, err := version.NewVersion(w.TerraformVersion); err != nil {
			return nil, fmt.Errorf("terraform_version %q is not a version", w.TerraformVersion)
		}
	}
	f := &File{TerraformVersion: w.TerraformVersion, Serial: w.Serial, Lineage: w.Lineage, Outputs: map[string]*Output{}}
	for name, o := range w.Outputs {
		out, err := decodeOutput(o)
		if err != nil {
			return nil, fmt.Errorf("outputs.%s: %w", name, err)
		}
		f.Outputs[name] = out
	}
	if rs == nil {
		rs = &resourceList{list: make([]*Resource, 0, len(w.Resources))}
		for i := range w.Resources {
			if err := rs.decode(&w.Resources[i]); err != nil {
				return nil, err
			}
		}
	}
	if len(rs.list) > 0 {
		f.Resources = rs.list
	}
	for _, wc := range w.CheckResults {
		if c := decodeCheckResult(wc); c != nil {
			f.CheckResults = append(f.CheckResults, c)
		}
	}
	sortFile(f)
	return f, nil
}

// resourceList is a state's resources, decoded one by one in order.
type resourceList struct {
	list    []*Resource
	seen    map[string]bool // their addresses
	scratch []byte          // compactValid's
}

// decode decodes the next resource, wr.
func (rs *resourceList) decode(wr *wireResource) error {
	i := len(rs.list)
	r, err := decodeResource(wr, &rs.scratch)
	if err != nil {
		return fmt.Errorf("resources[%d]: %w", i, err)
	}
	if rs.seen == nil {
		rs.seen = map[string]bool{}
	}
	if rs.seen[r.Addr()] {
		return fmt.Errorf("resources[%d]: %s appears twice", i, r.Addr())
	}
	rs.seen[r.Addr()] = true
	rs.list = append(rs.list, r)
	return nil
}

// add is decode for the wire reader, which gives up on an error (Decode
// then reads the state again, through encoding/json, for its errors in
// their order).
func (rs *resourceList) add(wr *wireResource) bool { return rs.decode(wr) == nil }

// decodeResource reads one resource; scratch is a buffer for
// compactValid.
func decodeResource(wr *wireResource, scratch *[]byte) (*Resource, error) {
	r := &Resource{Type: wr.Type, Name: wr.Name, Provider: wr.Provider}
	switch wr.Mode {
	case "managed":
		r.Mode = Managed
	case "data":
		r.Mode = Data
	default:
		return nil, fmt.Errorf("mode %q of %s.%s is neither managed nor data", wr.Mode, wr.Type, wr.Name)
	}
	if !validName(wr.Type) || !validName(wr.Name) {
		return nil, fmt.Errorf("type %q and name %q: want names of letters, digits, _ and -", wr.Type, wr.Name)
	}
	if wr.Module != "" {
		m, err := checkModule(wr.Module)
		if err != nil {
			return nil, fmt.Errorf("module: %w", err)
		}
		r.Module = m
	}
	var seen map[string]bool // the instances' keys and deposed keys, for many instances
	if len(wr.Instances) > fewInstances {
		seen = make(map[string]bool, len(wr.Instances))
	}
	r.Instances = make([]*Instance, 0, len(wr.Instances))
	for j, wi := range wr.Instances {
		in, err := decodeInstance(wi, scratch)
		if err != nil {
			return nil, fmt.Errorf("%s: instances[%d]: %w", r.Addr(), j, err)
		}
		if in.Provider == "" && r.Provider == "" {
			return nil, fmt.Errorf("%s: instances[%d]: no provider, on the resource or the instance", r.Addr(), j)
		}
		if twice(r.Instances, in, seen) {
			what := r.InstanceAddr(in.Key)
			if in.Deposed != "" {
				what += " deposed object " + in.Deposed
			}
			return nil, fmt.Errorf("%s: instances[%d]: %s appears twice", r.Addr(), j, what)
		}
		r.Instances = append(r.Instances, in)
	}
	if len(r.Instances) == 0 {
		r.Instances = nil // as an empty or null list reads
	}
	return r, nil
}

// fewInstances is how many instances a resource has at most for
// decodeResource to look for a repeated one among them one by one.
const fewInstances = 16

// twice reports whether in's key and deposed key are those of one of
// before, the instances read so far, and notes them in seen (nil: look
// through before).
func twice(before []*Instance, in *Instance, seen map[string]bool) bool {
	if seen == nil {
		for _, b := range before {
			if b.Key == in.Key && b.Deposed == in.Deposed {
				return true
			}
		}
		return false
	}
	id := in.Key.String() + " " + in.Deposed
	if seen[id] {
		return true
	}
	seen[id] = true
	return false
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i], i == 0) {
			return false
		}
	}
	return true
}

func decodeInstance(wi wireInstance, scratch *[]byte) (*Instance, error) {
	in := &Instance{
		Status: wi.Status, Deposed: wi.Deposed, Provider: wi.Provider, SchemaVersion: wi.SchemaVersion,
		Dependencies:        wi.Dependencies,
		CreateBeforeDestroy: wi.CreateBeforeDestroy, SkipDestroy: wi.SkipDestroy,
	}
	k, err := decodeKey(wi.IndexKey)
	if err != nil {
		return nil, err
	}
	in.Key = k
	if in.Status != "" && in.Status != "tainted" {
		return nil, fmt.Errorf("status %q: want \"tainted\" or none", in.Status)
	}
	if in.Deposed != "" && len(in.Deposed) != 8 {
		return nil, fmt.Errorf("deposed %q: want a key of 8 characters", in.Deposed)
	}
	switch {
	case wi.Attributes != nil:
		if t := bytes.TrimSpace(wi.Attributes); len(t) == 0 || t[0] != '{' {
			return nil, fmt.Errorf("attributes: want an object")
		}
		in.Attributes = compactValid(scratch, wi.Attributes)
	case wi.AttributesFlat != nil:
		in.AttributesFlat = wi.AttributesFlat // read only without attributes, as OpenTofu does
	default:
		in.Attributes = json.RawMessage("{}")
	}
	if wi.SensitiveAttributes != nil && !bytes.Equal(bytes.TrimSpace(wi.SensitiveAttributes), []byte("null")) {
		paths, err := decodePaths(wi.SensitiveAttributes)
		if err != nil {
			return nil, fmt.Errorf("sensitive_attributes: %w", err)
		}
		in.Sensitive = paths
	}
	if wi.Private != nil {
		p, err := base64.StdEncoding.DecodeString(*wi.Private)
		if err != nil {
			return nil, fmt.Errorf("private: not base64: %v", err)
		}
		if len(p) > 0 {
			in.Private = p
		}
	}
	if len(wi.Identity) > 0 {
		in.Identity = compactValid(scratch, wi.Identity)
		in.IdentitySchemaVersion = wi.IdentitySchemaVersion
	}
	return in, nil
}

// decodeKey reads index_key: absent or null, a whole number (as OpenTofu
// reads JSON numbers: through a float64), or a string.
func decodeKey(raw json.RawMessage) (Key, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return Key{}, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return Key{}, fmt.Errorf("index_key: %s", plainJSONError(err))
		}
		return String(s), nil
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || f != math.Trunc(f) || f < 0 || f > 1<<53 {
		return Key{}, fmt.Errorf("index_key %s: want a whole number of 0 or more, or a string", raw)
	}
	return Int(int(f)), nil
}

func decodeCheckResult(wc wireCheckResult) *CheckResult {
	switch wc.ObjectKind {
	case "resource", "output", "check", "var":
	default:
		return nil // a kind from a later version: OpenTofu drops it too
	}
	c := &CheckResult{Kind: wc.ObjectKind, Addr: wc.ConfigAddr, Status: checkStatus(wc.Status)}
	for _, o := range wc.Objects {
		c.Objects = append(c.Objects, CheckObject{Addr: o.ObjectAddr, Status: checkStatus(o.Status), FailureMessages: o.FailureMessages})
	}
	return c
}

// checkStatus is a status as OpenTofu writes it back: one it does not
// know is unknown.
func checkStatus(s string) string {
	switch s {
	case "pass", "fail", "error":
		return s
	}
	return "unknown"
}
