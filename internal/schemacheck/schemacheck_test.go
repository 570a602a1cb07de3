package schemacheck_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/schemacheck"
)

// TestValidate: each keyword accepts what the draft 2020-12 accepts and
// refuses the rest, with the JSON pointer of the value at fault.
func TestValidate(t *testing.T) {
	const schema = `{
	  "$schema": "https://json-schema.org/draft/2020-12/schema",
	  "type": "object",
	  "additionalProperties": false,
	  "required": ["name"],
	  "properties": {
	    "name": { "type": "string", "pattern": "^[a-z]+$", "minLength": 2, "maxLength": 5 },
	    "size": { "enum": ["small", "large"], "default": "small" },
	    "kind": { "const": "vm" },
	    "port": { "anyOf": [ { "type": "integer", "minimum": 1, "maximum": 65535 }, { "$ref": "#/$defs/ref" } ] },
	    "tags": { "type": "object", "additionalProperties": { "type": "string" }, "propertyNames": { "pattern": "^[a-z]" } },
	    "list": { "type": "array", "items": { "type": ["string", "null"] }, "minItems": 1 },
	    "one": { "oneOf": [ { "type": "number" }, { "type": "integer" } ] },
	    "nope": { "not": { "type": "string" } },
	    "cond": {
	      "type": "object",
	      "if": { "properties": { "a": { "const": true } }, "required": ["a"] },
	      "then": { "required": ["b"] },
	      "else": { "allOf": [ { "required": ["c"] } ] }
	    },
	    "never": false
	  },
	  "$defs": { "ref": { "type": "string", "pattern": "^\\$\\{.+\\}$" } }
	}`
	s, err := schemacheck.Compile([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		doc  string
		want []string
	}{
		{`{"name": "web"}`, nil},
		{`{"name": "web", "size": "large", "kind": "vm", "port": 443, "tags": {"env": "x"}, "list": ["a", null], "nope": 1, "cond": {"a": true, "b": 1}}`, nil},
		{`{"name": "web", "port": "${var.port}", "cond": {"c": 1}, "one": 1.5}`, nil},
		{`{}`, []string{`/: missing required key "name"`}},
		{`[]`, []string{`/: expected object, got array []`}},
		{`{"name": "web", "nmae": 1}`, []string{`/nmae: unknown key "nmae" (expected one of: cond, kind, list, name, never, nope, one, port, size, tags)`}},
		{`{"name": "Web"}`, []string{`/name: "Web" does not match "^[a-z]+$"`}},
		{`{"name": "w"}`, []string{`/name: "w" is shorter than 2 characters`}},
		{`{"name": "webserver"}`, []string{`/name: "webserver" is longer than 5 characters`}},
		{`{"name": 7}`, []string{`/name: expected string, got integer 7`}},
		{`{"name": "web", "size": "medium"}`, []string{`/size: "medium" is not one of ["small","large"]`}},
		{`{"name": "web", "kind": "db"}`, []string{`/kind: "db" is not "vm"`}},
		{`{"name": "web", "port": 0}`, []string{`/port: 0 matches none of 2 alternatives (anyOf)`, `/port: 0 is less than the minimum 1`, `/port: expected string, got integer 0`}},
		{`{"name": "web", "port": 70000}`, []string{`/port: 70000 matches none of 2 alternatives (anyOf)`, `/port: 70000 is more than the maximum 65535`, `/port: expected string, got integer 70000`}},
		{`{"name": "web", "port": 8.5}`, []string{`/port: 8.5 matches none of 2 alternatives (anyOf)`, `/port: expected integer, got number 8.5`, `/port: expected string, got number 8.5`}},
		// Every alternative says why it does not match.
		{`{"name": "web", "port": "80"}`, []string{`/port: "80" matches none of 2 alternatives (anyOf)`, `/port: expected integer, got string "80"`, `/port: "80" does not match "^\\$\\{.+\\}$"`}},
		{`{"name": "web", "port": true}`, []string{`/port: true matches none of 2 alternatives (anyOf)`, `/port: expected integer, got boolean true`, `/port: expected string, got boolean true`}},
		{`{"name": "web", "tags": {"Env": 1}}`, []string{`/tags/Env: expected string, got integer 1`, `/tags/Env: key "Env": "Env" does not match "^[a-z]"`}},
		{`{"name": "web", "list": []}`, []string{`/list: 0 items, fewer than 1`}},
		{`{"name": "web", "list": [1]}`, []string{`/list/0: expected string or null, got integer 1`}},
		{`{"name": "web", "one": 2}`, []string{`/one: 2 matches 2 alternatives of oneOf, not exactly one`}},
		{`{"name": "web", "nope": "x"}`, []string{`/nope: "x" must not match {"type":"string"}`}},
		{`{"name": "web", "cond": {"a": true}}`, []string{`/cond: missing required key "b"`}},
		{`{"name": "web", "cond": {"a": false}}`, []string{`/cond: missing required key "c"`}},
		{`{"name": "web", "never": null}`, []string{`/never: no value is allowed here`}},
	} {
		t.Run(tc.doc, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tc.doc), &v); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range s.Validate(v) {
				for _, r := range e.All() {
					got = append(got, r.String())
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCompileRefuses: a keyword the checker does not check, a reference
// outside the schema or to nothing, and a pattern Go cannot read are
// refused, so that a schema never says more than is checked.
func TestCompileRefuses(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"properties": {"a": {"uniqueItems": true}}}`, `#/properties/a: keyword "uniqueItems" is not checked by schemacheck`},
		{`{"format": "uri"}`, `#: keyword "format" is not checked by schemacheck`},
		{`{"$ref": "other.json#/x"}`, `#/$ref: $ref "other.json#/x": only references inside the schema (#/…) are supported`},
		{`{"$ref": "#/$defs/missing", "$defs": {}}`, `#/$ref: $ref "#/$defs/missing": no "missing"`},
		{`{"pattern": "(?<=a)b"}`, `#/pattern: error parsing regexp`},
		{`{"type": "text"}`, `#/type: type: unknown type text`},
		{`{"anyOf": []}`, `#/anyOf: want a non-empty array`},
		{`{"items": 3}`, `#/items: a schema is an object or a boolean, got float64`},
		{`{"enum": "a"}`, `#/enum: want an array`},
		{`{"required": [1]}`, `#/required: want an array of strings`},
		{`{"minimum": "1"}`, `#/minimum: want a number`},
		{`{"pattern": 1}`, `#/pattern: want a string`},
	} {
		_, err := schemacheck.Compile([]byte(tc.schema))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compile(%s) = %v, want an error with %q", tc.schema, err, tc.want)
		}
	}
}
