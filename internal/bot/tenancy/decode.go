package tenancy

import (
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kyku/action/internal/suggest"
)

// shape is what the policy file expects at one place: a mapping with
// these keys, a list of one shape, a mapping of strings, a string or a
// boolean. Checking the file's nodes against it before decoding is what
// lets every error name a key path and position instead of a Go type.
type shape struct {
	kind   shapeKind
	fields map[string]*shape // kindMap
	elem   *shape            // kindList
}

type shapeKind int

const (
	kindMap shapeKind = iota
	kindList
	kindStringMap
	kindString
	kindBool
)

// String is the kind as the file's reader would call it.
func (k shapeKind) String() string {
	switch k {
	case kindMap:
		return "a mapping of keys"
	case kindList:
		return "a list"
	case kindStringMap:
		return "a mapping of names to strings"
	case kindBool:
		return "true or false"
	}
	return "a string"
}

var (
	str        = &shape{kind: kindString}
	boolean    = &shape{kind: kindBool}
	stringList = &shape{kind: kindList, elem: str}

	policyShape = &shape{kind: kindMap, fields: map[string]*shape{
		"repositories": {kind: kindList, elem: &shape{kind: kindMap, fields: map[string]*shape{
			"match":               stringList,
			"buckets":             {kind: kindList, elem: &shape{kind: kindMap, fields: map[string]*shape{"name": str, "role": str, "terraform-keys": str}}},
			"providers":           stringList,
			"allow-endpoint":      boolean,
			"allow-profile":       boolean,
			"allow-import":        boolean,
			"terraform-providers": stringList,
			"provider-grants": {kind: kindList, elem: &shape{kind: kindMap, fields: map[string]*shape{
				"source":   str,
				"env":      {kind: kindStringMap},
				"files":    stringList,
				"metadata": boolean,
			}}},
		}}},
	}}
)

// positions maps a key path ("repositories[0].buckets[1].name") to the
// node found there, for the checks after decoding to name their line.
type positions map[string]*yaml.Node

// checker walks a policy file's nodes against policyShape.
type checker struct {
	file string
	at   positions
	errs []error
}

// errorf records "FILE:LINE:COL: PATH: message" at node n.
func (c *checker) errorf(n *yaml.Node, path, format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("%s:%d:%d: %s: %s", c.file, n.Line, n.Column, path, fmt.Sprintf(format, args...)))
}

// walk checks node n, found at path, against s.
func (c *checker) walk(n *yaml.Node, path string, s *shape) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	c.at[path] = n
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return // an empty value is the zero value: a missing list, "" or false
	}
	switch s.kind {
	case kindMap, kindStringMap:
		if n.Kind != yaml.MappingNode {
			c.errorf(n, path, "must be %s, not %s", s.kind, describe(n))
			return
		}
		seen := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			sub := join(path, k.Value)
			if first, ok := seen[k.Value]; ok {
				c.errorf(k, sub, "given twice (first on line %d)", first.Line)
				continue
			}
			seen[k.Value] = k
			if s.kind == kindStringMap {
				c.walk(v, sub, str)
				continue
			}
			f, ok := s.fields[k.Value]
			if !ok {
				c.errorf(k, sub, "unknown key%s; the keys here are %s", suggest.DidYouMean(k.Value, keys(s)), strings.Join(keys(s), ", "))
				continue
			}
			c.walk(v, sub, f)
		}
	case kindList:
		if n.Kind != yaml.SequenceNode {
			c.errorf(n, path, "must be %s, not %s", s.kind, describe(n))
			return
		}
		for i, e := range n.Content {
			c.walk(e, fmt.Sprintf("%s[%d]", path, i), s.elem)
		}
	case kindString:
		if n.Kind != yaml.ScalarNode {
			c.errorf(n, path, "must be %s, not %s", s.kind, describe(n))
		}
	case kindBool:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			c.errorf(n, path, "must be %s, not %s", s.kind, describe(n))
		}
	}
}

// describe names what node n is, in the file's terms.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("%q", n.Value)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func keys(s *shape) []string {
	out := make([]string, 0, len(s.fields))
	for k := range s.fields {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
