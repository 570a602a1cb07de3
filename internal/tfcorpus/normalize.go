package tfcorpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// WorkdirPlaceholder stands in a golden for the directory OpenTofu ran
// in (path.cwd, abspath): a test puts its own directory in its place.
const WorkdirPlaceholder = "@@WORKDIR@@"

// Normalize is OpenTofu's JSON (a plan's or a state's) as a golden
// records it: the top-level timestamp dropped, workdir replaced by
// WorkdirPlaceholder in every string and key, numbers as written,
// objects' keys sorted, indented by two spaces, with a final newline.
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
