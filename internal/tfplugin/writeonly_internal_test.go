package tfplugin

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
	"google.golang.org/protobuf/encoding/protowire"
)

// The field numbers below are those of terraform-plugin-go v0.31.0's
// tfplugin5.proto and tfplugin6.proto: ClientCapabilities {
// deferral_allowed = 1; write_only_attributes_allowed = 2 }, and
// Schema.Attribute's write_only = 10 (protocol 5) and 11 (protocol 6,
// where nested_type is 10).

// TestRequestsSayWriteOnlyAttributesAreHandled: every request that
// carries ClientCapabilities carries it at its field, with
// write_only_attributes_allowed set and deferral_allowed not, as
// OpenTofu sends it; ApplyResourceChange and ValidateDataResourceConfig
// have none.
func TestRequestsSayWriteOnlyAttributesAreHandled(t *testing.T) {
	for _, tc := range []struct {
		name  string
		req   message
		field protowire.Number // 0: none
	}{
		{"ValidateResourceConfig", typedConfig{typeName: "t", caps: true}, 3},
		{"ValidateDataResourceConfig", typedConfig{typeName: "t"}, 0},
		{"ConfigureProvider", configureRequest{terraformVersion: "1.12.6"}, 3},
		{"ReadResource", readRequest{typeName: "t"}, 5},
		{"PlanResourceChange", planRequest{typeName: "t"}, 7},
		{"ApplyResourceChange", applyRequest{typeName: "t"}, 0},
		{"ImportResourceState", importRequest{typeName: "t", id: "x"}, 3},
		{"ReadDataSource", readDataRequest{typeName: "t"}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var caps []byte
			found := false
			err := eachField(tc.req.appendTo(nil), func(f field) error {
				if tc.field != 0 && f.num == tc.field {
					caps, found = f.bytes, true
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if found != (tc.field != 0) {
				t.Fatalf("capabilities at field %d: found %v", tc.field, found)
			}
			if !found {
				return
			}
			got := map[protowire.Number]uint64{}
			if err := eachField(caps, func(f field) error { got[f.num] = f.x; return nil }); err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[2] != 1 {
				t.Errorf("ClientCapabilities = %v, want only write_only_attributes_allowed (2) = true", got)
			}
		})
	}
}

// TestSchemaReadsWriteOnly: an attribute's write_only is read at the
// field its protocol gives it, and not at the other protocol's.
func TestSchemaReadsWriteOnly(t *testing.T) {
	attr := func(num protowire.Number) []byte {
		b := appendString(nil, 1, "password_wo")
		b = appendBytes(b, 2, []byte(`"string"`))
		b = appendBool(b, 5, true) // optional
		return appendBool(b, varintField(num), true)
	}
	for _, tc := range []struct {
		protocol int
		field    protowire.Number
		want     bool
	}{
		{5, 10, true}, {6, 11, true}, {6, 12, false}, {5, 11, false},
	} {
		d := schemaDecoder{protocol: tc.protocol, types: map[string]cty.Type{}}
		name, a, err := d.attribute(attr(tc.field))
		if err != nil || name != "password_wo" {
			t.Fatalf("protocol %d: %q %v", tc.protocol, name, err)
		}
		if a.WriteOnly != tc.want {
			t.Errorf("protocol %d, field %d: WriteOnly %v, want %v", tc.protocol, tc.field, a.WriteOnly, tc.want)
		}
	}
}
