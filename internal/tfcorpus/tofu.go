package tfcorpus

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// tofuPlan is the part of `tofu show -json PLANFILE` the comparison reads.
type tofuPlan struct {
	FormatVersion   string                `json:"format_version"`
	ResourceChanges []tofuResourceChange  `json:"resource_changes"`
	OutputChanges   map[string]tofuChange `json:"output_changes"`
	Errored         bool                  `json:"errored"`
}

type tofuResourceChange struct {
	Address         string     `json:"address"`
	PreviousAddress string     `json:"previous_address"`
	Deposed         string     `json:"deposed"`
	Change          tofuChange `json:"change"`
}

type tofuChange struct {
	Actions        []string        `json:"actions"`
	After          json.RawMessage `json:"after"`
	AfterUnknown   json.RawMessage `json:"after_unknown"`
	AfterSensitive json.RawMessage `json:"after_sensitive"`
	Importing      *struct {
		ID string `json:"id"`
	} `json:"importing"`
}

// FromTofu reads OpenTofu's JSON plan (format 1.x, tofu show -json of a
// saved plan) into the compared shape. A plan that errored is refused.
func FromTofu(data []byte) (Plan, error) {
	var tp tofuPlan
	if err := json.Unmarshal(data, &tp); err != nil {
		return Plan{}, fmt.Errorf("read OpenTofu plan: %w", err)
	}
	if !strings.HasPrefix(tp.FormatVersion, "1.") {
		return Plan{}, fmt.Errorf("read OpenTofu plan: format_version %q, want 1.x", tp.FormatVersion)
	}
	if tp.Errored {
		return Plan{}, errors.New("read OpenTofu plan: the plan errored")
	}
	p := Plan{Outputs: map[string]Output{}}
	for _, rc := range tp.ResourceChanges {
		c, err := tofuResource(rc)
		if err != nil {
			return Plan{}, fmt.Errorf("read OpenTofu plan: %s: %w", rc.Address, err)
		}
		p.Changes = append(p.Changes, c)
	}
	sortChanges(p.Changes)
	for name, oc := range tp.OutputChanges {
		o, err := tofuOutput(oc)
		if err != nil {
			return Plan{}, fmt.Errorf("read OpenTofu plan: output %s: %w", name, err)
		}
		p.Outputs[name] = o
	}
	return p, nil
}

func tofuResource(rc tofuResourceChange) (Change, error) {
	if rc.Address == "" || len(rc.Change.Actions) == 0 {
		return Change{}, errors.New("no address or no actions")
	}
	c := Change{
		Address:         rc.Address,
		Deposed:         rc.Deposed != "",
		PreviousAddress: rc.PreviousAddress,
		Actions:         rc.Change.Actions,
	}
	if rc.Change.Importing != nil {
		c.Importing = rc.Change.Importing.ID
	}
	after, err := tofuValue(rc.Change)
	if err != nil {
		return Change{}, err
	}
	c.After = after
	sens, err := decodeJSON(rc.Change.AfterSensitive)
	if err != nil {
		return Change{}, fmt.Errorf("after_sensitive: %w", err)
	}
	if c.Sensitive, err = shownSensitive(c.After, markedPaths(sens)); err != nil {
		return Change{}, err
	}
	return c, nil
}

func tofuOutput(oc tofuChange) (Output, error) {
	if len(oc.Actions) != 1 {
		return Output{}, fmt.Errorf("actions %v, want one", oc.Actions)
	}
	v, err := tofuValue(oc)
	if err != nil {
		return Output{}, err
	}
	sens, err := decodeJSON(oc.AfterSensitive)
	if err != nil {
		return Output{}, fmt.Errorf("after_sensitive: %w", err)
	}
	return Output{Action: oc.Actions[0], Value: v, Sensitive: sens == true}, nil
}

// tofuValue is a change's after value with after_unknown merged in.
func tofuValue(c tofuChange) (any, error) {
	after, err := decodeJSON(c.After)
	if err != nil {
		return nil, fmt.Errorf("after: %w", err)
	}
	unknown, err := decodeJSON(c.AfterUnknown)
	if err != nil {
		return nil, fmt.Errorf("after_unknown: %w", err)
	}
	return normalValue(mergeUnknown(after, unknown))
}

// mergeUnknown puts Unknown where the after_unknown tree says true.
func mergeUnknown(after, unknown any) any {
	if after == nil && len(markedPaths(unknown)) == 0 {
		return nil
	}
	switch u := unknown.(type) {
	case bool:
		if u {
			return Unknown
		}
	case []any:
		list, _ := after.([]any)
		out := make([]any, max(len(list), len(u)))
		copy(out, list)
		for i, e := range u {
			out[i] = mergeUnknown(out[i], e)
		}
		return out
	case map[string]any:
		obj, _ := after.(map[string]any)
		out := make(map[string]any, len(obj)+len(u))
		for k, e := range obj {
			out[k] = e
		}
		for k, e := range u {
			out[k] = mergeUnknown(out[k], e)
		}
		return out
	}
	return after
}

// markedPaths are the paths where a tree of OpenTofu's *_sensitive form
// holds true, sorted.
func markedPaths(tree any) []string {
	var out []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case bool:
			if x {
				out = append(out, path)
			}
		case []any:
			for i, e := range x {
				walk(path+pathStep(i), e)
			}
		case map[string]any:
			for k, e := range x {
				walk(path+pathStep(k), e)
			}
		}
	}
	walk("", tree)
	sort.Strings(out)
	return out
}
