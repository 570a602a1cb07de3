package value

import (
	"encoding/json"
	"testing"
)

// A simulator object file, as the simulator writes it.
var benchObject = []byte(`{
  "id": "10000003",
  "type": "Vm",
  "name": "vm-0",
  "cloudName": "bench-vm-0",
  "created": "2026-11-30T21:00:00Z",
  "properties": {
    "image": "debian-12",
    "network": "10000001",
    "securityGroups": [
      "10000002"
    ],
    "size": "small",
    "tags": {}
  },
  "outputs": {
    "id": "10000003",
    "privateIp": "10.154.101.181",
    "publicIp": "198.51.100.24"
  }
}
`)

func BenchmarkParseJSON(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseJSON(benchObject); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSONUnmarshal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := json.Unmarshal(benchObject, &v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendJSONIndent(b *testing.B) {
	v, _ := ParseJSON(benchObject)
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		buf, _ = AppendJSONIndent(buf[:0], v, "  ", 0)
	}
}

func BenchmarkJSONMarshalIndent(b *testing.B) {
	v, _ := ParseJSON(benchObject)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.MarshalIndent(v, "", "  "); err != nil {
			b.Fatal(err)
		}
	}
}
