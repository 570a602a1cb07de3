package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// yamlDoc is one YAML document as the JSON value a schema validates
// (as editors read it: timestamps are text), with where each value is
// written: its key's line and its own, by JSON pointer.
type yamlDoc struct {
	value any
	lines map[string][]int
}

// readYAMLDoc reads the one document of data.
func readYAMLDoc(t *testing.T, data []byte) (yamlDoc, error) {
	t.Helper()
	doc := yamlDoc{lines: map[string][]int{}}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return doc, nil
		}
		return doc, err
	}
	if len(root.Content) == 0 {
		return doc, nil
	}
	v, err := doc.walk(root.Content[0], "", 0, 0)
	doc.value = v
	return doc, err
}

func (d *yamlDoc) walk(n *yaml.Node, path string, keyLine, depth int) (any, error) {
	if depth > 100 {
		return nil, fmt.Errorf("%s: nested too deep", path)
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	d.lines[path] = []int{keyLine, n.Line}
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if _, dup := m[k.Value]; dup {
				return nil, fmt.Errorf("line %d: duplicate key %q", k.Line, k.Value)
			}
			sub := path + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k.Value)
			v, err := d.walk(n.Content[i+1], sub, k.Line, depth+1)
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		list := make([]any, len(n.Content))
		for i, e := range n.Content {
			v, err := d.walk(e, path+"/"+strconv.Itoa(i), e.Line, depth+1)
			if err != nil {
				return nil, err
			}
			list[i] = v
		}
		return list, nil
	}
	switch n.ShortTag() {
	case "!!str", "!!timestamp", "!!binary":
		return n.Value, nil
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		err := n.Decode(&b)
		return b, err
	case "!!int", "!!float":
		var f float64
		err := n.Decode(&f)
		return f, err
	}
	return nil, fmt.Errorf("%s: tag %s", path, n.Tag)
}
