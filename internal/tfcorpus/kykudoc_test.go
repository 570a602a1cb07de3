package tfcorpus_test

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/tfcorpus"
)

// kykuDocOf writes p as `kyku plan --json` is expected to carry it, each
// change with its whole planned value ("planned", the markers in place,
// sensitive values masked) and its sensitive paths ("sensitivePaths").
// It is the shape FromKyku reads, written out for the harness's tests.
func kykuDocOf(p tfcorpus.Plan) []byte {
	type change struct {
		Action         string   `json:"action"`
		ResourceID     string   `json:"resourceId"`
		ReplaceOrder   string   `json:"replaceOrder,omitempty"`
		MovedFrom      string   `json:"movedFrom,omitempty"`
		ImportID       string   `json:"importId,omitempty"`
		Planned        any      `json:"planned,omitempty"`
		SensitivePaths []string `json:"sensitivePaths,omitempty"`
	}
	type output struct {
		Name      string `json:"name"`
		Action    string `json:"action"`
		New       any    `json:"new"`
		Sensitive bool   `json:"sensitive,omitempty"`
	}
	var doc struct {
		Changes       []change `json:"changes"`
		OutputChanges []output `json:"outputChanges"`
	}
	for _, c := range p.Changes {
		kc := change{ResourceID: c.Address, MovedFrom: c.PreviousAddress, ImportID: c.Importing, SensitivePaths: c.Sensitive}
		if c.Deposed {
			kc.ResourceID += "~deposed"
		}
		switch strings.Join(c.Actions, ",") {
		case "delete,create":
			kc.Action, kc.ReplaceOrder = "replace", "destroy-before-create"
		case "create,delete":
			kc.Action, kc.ReplaceOrder = "replace", "create-before-destroy"
		case "forget,create":
			kc.Action, kc.ReplaceOrder = "replace", "forget-then-create"
		case "delete":
			kc.Action = "destroy"
		case "no-op":
			kc.Action = "no-op"
			if c.PreviousAddress != "" {
				kc.Action = "move"
			}
		default:
			kc.Action = c.Actions[0]
		}
		if c.After != nil {
			kc.Planned = masked(c.After, "", c.Sensitive)
		}
		doc.Changes = append(doc.Changes, kc)
	}
	names := make([]string, 0, len(p.Outputs))
	for n := range p.Outputs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		o := p.Outputs[n]
		action := o.Action
		if action == "delete" {
			action = "destroy"
		}
		v := masked(o.Value, "", nil)
		if o.Sensitive && v != nil {
			v = tfcorpus.Masked
		}
		doc.OutputChanges = append(doc.OutputChanges, output{Name: n, Action: action, New: v, Sensitive: o.Sensitive})
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return b
}

// masked is v with the values at sensitive paths masked, as Kyku shows them.
func masked(v any, path string, sensitive []string) any {
	if slices.Contains(sensitive, path) {
		return tfcorpus.Masked
	}
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = masked(e, path+step(k), sensitive)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = masked(e, path+"["+strconv.Itoa(i)+"]", sensitive)
		}
		return out
	case tfcorpus.Number:
		return json.Number(x)
	}
	return v
}

// step is a key's path step, as tfcorpus writes paths.
func step(k string) string {
	for i, r := range k {
		ok := r == '_' || r == '-' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9'
		if !ok || i == 0 && r == '-' {
			b, _ := json.Marshal(k)
			return "[" + string(b) + "]"
		}
	}
	if k == "" {
		return `[""]`
	}
	return "." + k
}
