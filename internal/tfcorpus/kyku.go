package tfcorpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// kykuPlan is the part of `kyku plan --json` the comparison reads.
type kykuPlan struct {
	Changes       []kykuChange       `json:"changes"`
	OutputChanges []kykuOutputChange `json:"outputChanges"`
}

type kykuChange struct {
	Action       string         `json:"action"`
	ResourceID   string         `json:"resourceId"`
	ProviderID   string         `json:"providerId"`
	ImportID     string         `json:"importId"`
	MovedFrom    string         `json:"movedFrom"`
	ReplaceOrder string         `json:"replaceOrder"`
	Properties   []kykuProperty `json:"properties"`
	// Planned, when the plan carries it, is the whole planned value with
	// the markers in place ("(known after apply)", "(sensitive)"), and
	// SensitivePaths the paths (Path syntax) of its sensitive values.
	Planned        json.RawMessage `json:"planned"`
	SensitivePaths []string        `json:"sensitivePaths"`
}

type kykuProperty struct {
	Path      string          `json:"path"`
	New       json.RawMessage `json:"new"`
	Sensitive bool            `json:"sensitive"`
	Unknown   bool            `json:"unknown"`
}

type kykuOutputChange struct {
	Name      string          `json:"name"`
	Action    string          `json:"action"`
	New       json.RawMessage `json:"new"`
	Sensitive bool            `json:"sensitive"`
}

// kykuActions are OpenTofu's action lists for Kyku's actions but replace,
// whose list depends on its order, and import, whose list depends on
// whether an update follows it.
var kykuActions = map[string][]string{
	"create":  {"create"},
	"update":  {"update"},
	"destroy": {"delete"},
	"no-op":   {"no-op"},
	"read":    {"read"},
	"forget":  {"forget"},
	"move":    {"no-op"},
}

// kykuOutputActions are OpenTofu's names of Kyku's output actions.
var kykuOutputActions = map[string]string{"create": "create", "update": "update", "destroy": "delete", "no-op": "no-op"}

// deposedSuffix marks a deposed object's name in Kyku's plan.
const deposedSuffix = "~deposed"

// FromKyku reads `kyku plan --json` into the compared shape. resourceId
// is the address. A change's planned value is its "planned" member when
// the plan has one; otherwise it is put together from the change's
// properties, which is whole only for a create or a read (an update
// lists only what changes).
func FromKyku(data []byte) (Plan, error) {
	var kp kykuPlan
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&kp); err != nil {
		return Plan{}, fmt.Errorf("read Kyku plan: %w", err)
	}
	p := Plan{Outputs: map[string]Output{}}
	for _, kc := range kp.Changes {
		c, err := kykuResource(kc)
		if err != nil {
			return Plan{}, fmt.Errorf("read Kyku plan: %s: %w", kc.ResourceID, err)
		}
		p.Changes = append(p.Changes, c)
	}
	sortChanges(p.Changes)
	for _, oc := range kp.OutputChanges {
		action, ok := kykuOutputActions[oc.Action]
		if !ok {
			return Plan{}, fmt.Errorf("read Kyku plan: output %s: action %q", oc.Name, oc.Action)
		}
		v, err := decodeJSON(oc.New)
		if err != nil {
			return Plan{}, fmt.Errorf("read Kyku plan: output %s: %w", oc.Name, err)
		}
		if v, err = normalValue(markers(v)); err != nil {
			return Plan{}, fmt.Errorf("read Kyku plan: output %s: %w", oc.Name, err)
		}
		p.Outputs[oc.Name] = Output{Action: action, Value: v, Sensitive: oc.Sensitive}
	}
	return p, nil
}

func kykuResource(kc kykuChange) (Change, error) {
	c := Change{PreviousAddress: kc.MovedFrom}
	c.Address, c.Deposed = strings.CutSuffix(kc.ResourceID, deposedSuffix)
	switch kc.Action {
	case "replace":
		switch kc.ReplaceOrder {
		case "create-before-destroy":
			c.Actions = []string{"create", "delete"}
		case "forget-then-create":
			c.Actions = []string{"forget", "create"}
		default:
			c.Actions = []string{"delete", "create"}
		}
	case "import":
		// An import whose object differs from the configuration is
		// updated once imported: OpenTofu's [update] with importing.
		c.Actions = []string{"no-op"}
		if len(kc.Properties) > 0 {
			c.Actions = []string{"update"}
		}
	default:
		actions, ok := kykuActions[kc.Action]
		if !ok {
			return Change{}, fmt.Errorf("action %q", kc.Action)
		}
		c.Actions = actions
	}
	switch {
	case kc.ImportID != "":
		c.Importing = kc.ImportID
	case kc.Action == "import":
		c.Importing = kc.ProviderID
	}
	if kc.Action == "destroy" || kc.Action == "forget" {
		return c, nil
	}
	if kc.Planned != nil {
		v, err := decodeJSON(kc.Planned)
		if err != nil {
			return Change{}, fmt.Errorf("planned: %w", err)
		}
		if c.After, err = normalValue(markers(v)); err != nil {
			return Change{}, fmt.Errorf("planned: %w", err)
		}
		if c.Sensitive, err = shownSensitive(c.After, kc.SensitivePaths); err != nil {
			return Change{}, fmt.Errorf("sensitivePaths: %w", err)
		}
		return c, nil
	}
	after := map[string]any{}
	for _, pc := range kc.Properties {
		steps, err := parseKykuPath(pc.Path)
		if err != nil {
			return Change{}, err
		}
		v, err := decodeJSON(pc.New)
		if err != nil {
			return Change{}, fmt.Errorf("property %s: %w", pc.Path, err)
		}
		if v, err = normalValue(markers(v)); err != nil {
			return Change{}, fmt.Errorf("property %s: %w", pc.Path, err)
		}
		setPath(after, steps, v)
		if pc.Sensitive {
			c.Sensitive = append(c.Sensitive, joinSteps(steps))
		}
	}
	normal, err := normalValue(after)
	if err != nil {
		return Change{}, err
	}
	c.After = normal
	if c.Sensitive, err = shownSensitive(c.After, c.Sensitive); err != nil {
		return Change{}, err
	}
	return c, nil
}

// markers turns Kyku's marker strings into Markers.
func markers(v any) any {
	switch x := v.(type) {
	case string:
		switch Marker(x) {
		case Unknown:
			return Unknown
		case Masked:
			return Masked
		}
	case []any:
		for i, e := range x {
			x[i] = markers(e)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = markers(e)
		}
	}
	return v
}

// parseKykuPath splits a property path of Kyku's diff ("tags.env",
// "rule[0].port") into keys and indexes. Kyku's diff writes a map key as
// it is, so a key holding a dot is read as two: one more reason for the
// plan to carry its planned value whole.
func parseKykuPath(p string) ([]any, error) {
	var steps []any
	for _, part := range strings.Split(p, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name == "" && len(steps) == 0 {
			return nil, fmt.Errorf("property path %q", p)
		}
		if name != "" {
			steps = append(steps, name)
		}
		for rest != "" {
			idx, after, ok := strings.Cut(rest, "]")
			n, err := strconv.Atoi(idx)
			if !ok || err != nil {
				return nil, fmt.Errorf("property path %q", p)
			}
			steps = append(steps, n)
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return steps, nil
}

func joinSteps(steps []any) string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteString(pathStep(s))
	}
	return b.String()
}

// setPath sets v at steps under root, making maps and lists on the way.
func setPath(root map[string]any, steps []any, v any) {
	var cur any = root
	set := func(any) {}
	for i, st := range steps {
		last := i == len(steps)-1
		switch k := st.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				m = map[string]any{}
				set(m)
			}
			if last {
				m[k] = v
				return
			}
			cur, set = m[k], func(x any) { m[k] = x }
		case int:
			l, _ := cur.([]any)
			if len(l) <= k {
				l = append(l, make([]any, k+1-len(l))...)
				set(l)
			}
			if last {
				l[k] = v
				return
			}
			cur, set = l[k], func(x any) { l[k] = x }
		}
	}
}
