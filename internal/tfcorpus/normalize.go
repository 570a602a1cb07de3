package tfcorpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// WorkdirPlaceholder stands in a golden for the directory OpenTofu ran
// in (path.cwd, abspath): a test puts its own directory in its place.
const WorkdirPlaceholder = "@@WORKDIR@@"

// Normalize is OpenTofu's JSON (a plan's or a state's) as a golden
// records it: the top-level timestamp dropped, workdir replaced by
// WorkdirPlaceholder in every string and key, numbers as written,
// objects' keys sorted, the lists OpenTofu writes in no fixed order
// sorted (see sortLists), indented by two spaces, with a final newline.
func Normalize(data []byte, workdir string) ([]byte, error) {
	if workdir == "" {
		return nil, errors.New("normalize: no working directory given")
	}
	v, err := decodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("normalize: %w", err)
	}
	top, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("normalize: not a JSON object")
	}
	delete(top, "timestamp")
	sortLists(top)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(placeWorkdir(top, strings.TrimSuffix(workdir, "/"))); err != nil {
		return nil, fmt.Errorf("normalize: %w", err)
	}
	return buf.Bytes(), nil
}

// placeWorkdir replaces workdir by the placeholder in v's strings and keys.
func placeWorkdir(v any, workdir string) any {
	switch x := v.(type) {
	case string:
		return replaceDir(x, workdir)
	case []any:
		for i, e := range x {
			x[i] = placeWorkdir(e, workdir)
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[replaceDir(k, workdir)] = placeWorkdir(e, workdir)
		}
		return out
	}
	return v
}

// replaceDir replaces dir in s where it is a whole path or a path's
// leading directories (followed by the end, a slash or a character no
// file name holds), not where it is the start of a longer name.
func replaceDir(s, dir string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, dir)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(dir)
		b.WriteString(s[:i])
		if end == len(s) || !nameChar(s[end]) {
			b.WriteString(WorkdirPlaceholder)
		} else {
			b.WriteString(dir)
		}
		s = s[end:]
	}
}

func nameChar(c byte) bool {
	return c == '.' || c == '_' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// sortLists sorts the lists of a plan's JSON that OpenTofu writes in an
// order that changes from run to run: resource changes, relevant
// attributes, and the resources and child modules of the planned values
// and the prior state. Lists inside values are left as they are.
func sortLists(top map[string]any) {
	sortBy(top, "resource_changes", "address", "deposed")
	sortBy(top, "resource_drift", "address", "deposed")
	sortBy(top, "relevant_attributes", "resource", "attribute")
	if pv, ok := top["planned_values"].(map[string]any); ok {
		sortModule(pv["root_module"])
	}
	if ps, ok := top["prior_state"].(map[string]any); ok {
		if vals, ok := ps["values"].(map[string]any); ok {
			sortModule(vals["root_module"])
		}
	}
}

// sortModule sorts a state module's resources and child modules by
// address, and its child modules' likewise.
func sortModule(m any) {
	mod, ok := m.(map[string]any)
	if !ok {
		return
	}
	sortBy(mod, "resources", "address", "deposed")
	sortBy(mod, "child_modules", "address")
	if children, ok := mod["child_modules"].([]any); ok {
		for _, c := range children {
			sortModule(c)
		}
	}
}

// sortBy sorts the list obj[key] of objects by the JSON of their
// members named by keys, in turn; stable, so that equal keys keep
// OpenTofu's order.
func sortBy(obj map[string]any, key string, keys ...string) {
	list, ok := obj[key].([]any)
	if !ok {
		return
	}
	sortKey := func(e any) string {
		m, _ := e.(map[string]any)
		var b strings.Builder
		for _, k := range keys {
			if v, ok := m[k]; ok { // a missing member sorts first
				enc, _ := json.Marshal(v)
				b.Write(enc)
			}
			b.WriteByte(0)
		}
		return b.String()
	}
	sort.SliceStable(list, func(i, j int) bool { return sortKey(list[i]) < sortKey(list[j]) })
}
