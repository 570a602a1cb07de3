package tfschema

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zclconf/go-cty/cty"
)

// woBlock has a write-only attribute at the top, one in a list block and
// one in a nested attribute type, beside a sensitive one.
func woBlock() *Block {
	b := &Block{
		Attributes: map[string]*Attribute{
			"name":        {Type: cty.String, Required: true},
			"secret":      {Type: cty.String, Optional: true, Sensitive: true},
			"password_wo": {Type: cty.String, Optional: true, WriteOnly: true},
			"conn": {Optional: true, NestedType: &Object{Nesting: NestingSingle, Attributes: map[string]*Attribute{
				"host":   {Type: cty.String, Optional: true},
				"key_wo": {Type: cty.String, Optional: true, WriteOnly: true},
			}}},
		},
		BlockTypes: map[string]*NestedBlock{
			"rule": {Nesting: NestingList, Block: Block{Attributes: map[string]*Attribute{
				"port":     {Type: cty.Number, Optional: true},
				"token_wo": {Type: cty.String, Optional: true, WriteOnly: true},
			}}},
		},
	}
	b.Finish()
	return b
}

func woValue(t *testing.T, b *Block) cty.Value {
	t.Helper()
	v, ds := Config(b, map[string]any{
		"name": "db", "secret": "s3cret-sens", "password_wo": "pw-wo-value",
		"conn": map[string]any{"host": "h", "key_wo": "key-wo-value"},
		"rule": []any{map[string]any{"port": float64(1)}, map[string]any{"port": float64(2), "token_wo": "tok-wo-value"}},
	})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	return v
}

// TestWriteOnlyPathsAndNames: every write-only value is found, at any
// depth, and only those; the top-level names holding one are listed.
func TestWriteOnlyPathsAndNames(t *testing.T) {
	b := woBlock()
	v := woValue(t, b)
	var got []string
	for _, p := range b.WriteOnlyPaths(v) {
		got = append(got, PathString(p))
	}
	if diff := cmp.Diff([]string{"conn.key_wo", "password_wo", "rule[1].token_wo"}, got); diff != "" {
		t.Errorf("WriteOnlyPaths (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"conn", "password_wo", "rule"}, b.WriteOnlyNames()); diff != "" {
		t.Errorf("WriteOnlyNames (-want +got):\n%s", diff)
	}
	attr := cty.GetAttrPath
	for _, tc := range []struct {
		path cty.Path
		want bool
	}{
		{attr("password_wo"), true}, {attr("conn").GetAttr("key_wo"), true}, {attr("conn").GetAttr("host"), false},
		{attr("rule").IndexInt(1).GetAttr("token_wo"), true}, {attr("rule").IndexInt(0).GetAttr("port"), false},
		{attr("name"), false}, {attr("nope"), false},
	} {
		if got := b.WriteOnlyAt(tc.path); got != tc.want {
			t.Errorf("WriteOnlyAt(%s) = %v, want %v", PathString(tc.path), got, tc.want)
		}
	}
}

// TestNullWriteOnlyAndSecrets: NullWriteOnly nulls every write-only
// value and nothing else; AppendSecrets finds the sensitive and the
// write-only values.
func TestNullWriteOnlyAndSecrets(t *testing.T) {
	b := woBlock()
	v := woValue(t, b)
	n := b.NullWriteOnly(v)
	if got := b.WriteOnlyPaths(n); len(got) != 0 {
		t.Errorf("write-only values left: %v", got)
	}
	if n.GetAttr("name").AsString() != "db" || n.GetAttr("conn").GetAttr("host").AsString() != "h" || n.GetAttr("secret").AsString() != "s3cret-sens" {
		t.Errorf("NullWriteOnly changed other values: %#v", n)
	}
	got := b.AppendSecrets(nil, v)
	slices.Sort(got)
	if diff := cmp.Diff([]string{"key-wo-value", "pw-wo-value", "s3cret-sens", "tok-wo-value"}, got); diff != "" {
		t.Errorf("AppendSecrets (-want +got):\n%s", diff)
	}
	if got := b.AppendSecrets(nil, cty.NilVal); len(got) != 0 {
		t.Errorf("AppendSecrets of no value: %v", got)
	}
}
