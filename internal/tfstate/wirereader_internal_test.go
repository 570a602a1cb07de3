package tfstate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// wireStates are the recorded and handmade states: what OpenTofu and
// Kyku write, each of which the wire reader must read itself.
func wireStates(t testing.TB) map[string][]byte {
	paths, err := filepath.Glob("testdata/*/*.tfstate")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no states in testdata: %v", err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = data
	}
	return out
}

// oddStates are documents encoding/json reads in ways the wire reader
// must either match or leave to it: nulls, keys in another case, repeated
// keys, numbers of every form, escapes, invalid UTF-8, deep nesting.
var oddStates = []string{
	`{"version":4,"serial":1,"lineage":"l","resources":[]}`,
	`{"version":4,"Serial":3,"lineage":"l"}`,
	`{"version":4,"serial":3,"serial":4}`,
	`{"version":4,"SERİAL":3}`,
	`{"version":4,"serial":2.0}`,
	`{"version":4,"serial":1e2}`,
	`{"version":4,"serial":-1}`,
	`{"version":4,"serial":-0}`,
	`{"version":4,"serial":18446744073709551615}`,
	`{"version":4,"serial":18446744073709551616}`,
	`{"version":4,"serial":null,"lineage":null,"outputs":null,"resources":null,"check_results":null}`,
	`{"version":null}`,
	`null`,
	`[]`,
	`{"version":4} x`,
	`{"version":4,}`,
	`{"version":4 "serial":1}`,
	`{"version":4,"unknown":{"a":[1,2,{"b":null}],"c":"\u00e9\ud83d\ude00\ud800"},"lineage":"a\"b\\c\/d\n"}`,
	"{\"version\":4,\"lineage\":\"\xff\xfe\"}",
	"{\"version\":4,\"lineage\":\"a\tb\"}",
	`{"version":4,"lineage":"\x"}`,
	`{"version":4,"lineage":"\u12"}`,
	`{"version":4,"outputs":{"a":{"value":"x","type":"string","sensitive":true,"deprecated":"d"},"b":null}}`,
	`{"version":4,"outputs":{"a":{"value":1,"type":"number"},"a":{"value":2,"type":"number"}}}`,
	`{"version":4,"outputs":{"a":{"value":1,"Value":2}}}`,
	`{"version":4,"resources":[null,{"mode":"managed","type":"t","name":"n","provider":"p","instances":null}]}`,
	`{"version":4,"resources":[{"mode":"managed","type":"t","name":"n","provider":"p","instances":[null,{}]}]}`,
	`{"version":4,"resources":[{"mode":"managed","type":"t","name":"n","provider":"p","instances":[{"index_key":null,"status":null,"private":null,"identity_schema_version":null,"dependencies":null}]}]}`,
	`{"version":4,"resources":[{"mode":"managed","type":"t","name":"n","provider":"p","instances":[{"index_key":"k","private":"YQ==","identity":{"id":"x"},"identity_schema_version":2,"dependencies":[null,"a"],"create_before_destroy":true,"skip_destroy":false,"sensitive_attributes":[]}]}]}`,
	`{"version":4,"resources":[{"mode":"managed","type":"t","name":"n","instances":[{"attributes":{"a":"<&>\u2028"},"attributes_flat":null}]}]}`,
	`{"version":4,"resources":[{"mode":"managed","type":"t","name":"n","instances":[{"attributes_flat":{"a":"b"}}]}]}`,
	`{"version":4,"resources":[{"mode":"managed","type":"t","name":"n","instances":[{"schema_version":1.5}]}]}`,
	`{"version":4,"resources":[{"mode":"managed","type":"t","name":"n","instances":[{"create_before_destroy":"yes"}]}]}`,
	`{"version":4,"resources":[{"mode":"managed","type":"t","name":"n","instances":[{"dependencies":["a",1]}]}]}`,
	`{"version":4,"resources":[{"mode":1}]}`,
	`{"version":4,"resources":{}}`,
	`{"version":4,"check_results":[{"object_kind":"resource","config_addr":"a.b","status":"pass","objects":[{"object_addr":"a.b","status":"fail","failure_messages":["m",null]}]},null]}`,
	`{"version":4,"unknown":` + strings.Repeat("[", 9990) + strings.Repeat("]", 9990) + `}`,
	`{"version":4,"unknown":` + strings.Repeat("[", 10010) + strings.Repeat("]", 10010) + `}`,
	`  {"version" : 4 , "serial" : 7 }  ` + "\n",
	`{"version":4,"serial":01}`,
	`{"version":4,"serial":1.}`,
	`{"version":4,"unknown":-}`,
	`{"version":4,"unknown":tru}`,
	`{"version":4,"unknown":[1,]}`,
}

// TestWireReaderReadsAsEncodingJSON: what the wire reader reads of a
// state is what encoding/json reads of it, and it reads every state
// OpenTofu and Kyku wrote in testdata itself (else Decode is slow again).
func TestWireReaderReadsAsEncodingJSON(t *testing.T) {
	for name, data := range wireStates(t) {
		if ok := checkWire(t, data); !ok {
			t.Errorf("%s: the wire reader gave up on a state as written", name)
		}
	}
	for _, doc := range oddStates {
		checkWire(t, []byte(doc))
	}
}

// TestDecodeIsDecodeJSON: Decode, which decodes each resource as the
// wire reader reads it, gives what decoding through encoding/json gives:
// the same state, or the same error.
func TestDecodeIsDecodeJSON(t *testing.T) {
	for name, data := range wireStates(t) {
		checkDecode(t, data)
		var w wireFile
		if !readWire(data, &w, (&resourceList{}).add) {
			t.Errorf("%s: the wire reader gave up on a state as written", name)
		}
	}
	for _, doc := range oddStates {
		checkDecode(t, []byte(doc))
	}
	for _, doc := range []string{
		`{"version":4,"resources":[{"mode":"managed","type":"t","name":"n","provider":"p","instances":[{"index_key":1},{"index_key":2,"dependencies":["a"]}]},{"mode":"managed","type":"t","name":"m","provider":"p","instances":[{"index_key":"k"}]},{"mode":"data","type":"t","name":"n","provider":"p"}]}`,
		`{"version":4,"resources":[{"mode":"managed","type":"t","name":"n","provider":"p","instances":[{}]},{"mode":"managed","type":"t","name":"n","provider":"p","instances":[]}]}`,
		`{"version":4,"outputs":{"o":{"value":1}},"resources":[{"mode":"bad","type":"t","name":"n"}]}`,
		`{"version":3,"resources":[{"mode":"bad","type":"t","name":"n"}]}`,
		`{"version":4,"terraform_version":"x","resources":[{"mode":"managed","type":"t","name":"n","provider":"p","instances":[{"index_key":1.5}]}]}`,
	} {
		checkDecode(t, []byte(doc))
	}
}

// checkDecode fails t when Decode and decodeJSON differ on data.
func checkDecode(t *testing.T, data []byte) {
	t.Helper()
	if len(data) == 0 {
		return // ErrEmpty, before either
	}
	got, gotErr := Decode("s.tfstate", data)
	want, wantErr := decodeJSON("s.tfstate", data)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Errorf("Decode's error %v, encoding/json's %v, of %.300s", gotErr, wantErr, data)
	} else if !reflect.DeepEqual(got, want) {
		t.Errorf("Decode read\n%+v\nwhere encoding/json read\n%+v\nof %.300s", got, want, data)
	}
}

// checkWire fails t when readWire reads data otherwise than
// json.Unmarshal, and reports whether it read it.
func checkWire(t *testing.T, data []byte) bool {
	t.Helper()
	return checkRead(t, data, func(data []byte, f *wireFile) bool { return readWire(data, f, nil) })
}

// checkRead fails t when read reads data otherwise than json.Unmarshal
// into a T, and reports whether it read it.
func checkRead[T any](t *testing.T, data []byte, read func([]byte, *T) bool) bool {
	t.Helper()
	var want, got T
	err := json.Unmarshal(data, &want)
	if !read(data, &got) {
		return false
	}
	if err != nil {
		t.Errorf("the wire reader read what encoding/json refuses (%v):\n%.300s", err, data)
	} else if !reflect.DeepEqual(want, got) {
		t.Errorf("the wire reader read\n%+v\nwhere encoding/json read\n%+v\nof %.300s", got, want, data)
	}
	return true
}

var oddExtras = []string{
	`{"lineage":"l","serial":2,"digest":"d","prefix":"p","resources":{"a.b":{"config":{"n":1.5,"s":"x","l":[true,null,{}]},"cloudName":"c","protect":true,"providerId":"i","basis":{"config":"c","provider":"p","readAt":"2026-12-07T08:48:58.461921757Z","version":"1"}}},"interrupted":{"a.c":"t"}}`,
	`{"lineage":"l","resources":{"a":null,"b":{},"c":{"config":null,"basis":null}}}`,
	`{"lineage":"l","resources":{"a":{"basis":{"readAt":null}}}}`,
	`{"lineage":"l","resources":{"a":{"basis":{"readAt":"yesterday"}}}}`,
	`{"lineage":"l","resources":{"a":{"basis":{"readAt":5}}}}`,
	`{"lineage":"l","resources":{"a":{"config":"x"}}}`,
	`{"lineage":"l","resources":{"a":{"config":{"a":1,"a":2}}}}`,
	`{"lineage":"l","resources":{"a":{"config":{"a":1},"config":{"b":2}}}}`,
	`{"lineage":"l","resources":{"a":{"cloudname":"x"}}}`,
	`{"lineage":"l","resources":{"a":{}, "a":{"protect":true}}}`,
	`{"lineage":"l","interrupted":{"a":null,"b":"x"}}`,
	`{"lineage":"l","interrupted":{"a":1}}`,
	`{"lineage":"l","serial":"2"}`,
	`{"lineage":"l","resources":null,"interrupted":null,"prefix":null}`,
	`{"lineage":"l","resources":{"a":{"config":{"s":"\ud800\u00e9"}}}}`,
}

// TestExtraReaderReadsAsEncodingJSON: as the state's, for what Kyku keeps
// beside it; what EncodeExtra writes, the wire reader reads itself.
func TestExtraReaderReadsAsEncodingJSON(t *testing.T) {
	written, err := EncodeExtra(&Extra{Lineage: "l", Serial: 3, Prefix: "p", Resources: map[string]*ExtraResource{
		"a.b": {Config: map[string]any{"n": 1.0, "m": map[string]any{"k": []any{"v", nil, true}}}, CloudName: "c", Protect: true},
	}, Interrupted: map[string]string{"a.c": "t"}})
	if err != nil {
		t.Fatal(err)
	}
	if !checkExtra(t, written) {
		t.Errorf("the wire reader gave up on what EncodeExtra wrote:\n%s", written)
	}
	for _, doc := range oddExtras {
		checkExtra(t, []byte(doc))
	}
}

// checkExtra is checkWire for what Kyku keeps beside the state.
func checkExtra(t *testing.T, data []byte) bool {
	t.Helper()
	return checkRead(t, data, readExtra)
}

// FuzzWireReader: on any document, the wire reader reads what
// encoding/json reads, or leaves it to encoding/json.
func FuzzWireReader(f *testing.F) {
	for _, data := range wireStates(f) {
		f.Add(data)
	}
	for _, doc := range oddStates {
		f.Add([]byte(doc))
	}
	for _, doc := range oddExtras {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkWire(t, data)
		checkDecode(t, data)
		checkExtra(t, data)
		checkCompact(t, data)
	})
}

// TestCompactValidIsCompactHTML: the one-pass compaction of a decoded
// state's attributes writes what json.Compact and json.HTMLEscape write.
func TestCompactValidIsCompactHTML(t *testing.T) {
	for _, data := range wireStates(t) {
		checkCompact(t, data)
	}
	for _, doc := range []string{
		`{"a": "<b>&amp;\u2028 \"x\" \\", "b" : [ 1 , 2.5e3 , true , null ], "c": {"\u003c": "  ‧"}}`,
		"\t[ \"\xe2\x80\", \"\xe2\x80\xa8\" ]\r\n",
		`"tail \u00e9"`, `0`, `{}`,
	} {
		checkCompact(t, []byte(doc))
	}
}

func checkCompact(t *testing.T, data []byte) {
	t.Helper()
	if !json.Valid(data) {
		return
	}
	var scratch []byte
	if got, want := compactValid(&scratch, data), compactHTML(data); string(got) != string(want) {
		t.Errorf("compactValid wrote\n%s\nwhere compactHTML writes\n%s", got, want)
	}
}
