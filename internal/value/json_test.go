package value

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var jsonSeeds = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.5e-7`, `1e21`, `123456789012345678901234`, `9007199254740993`, `0.1234567890123456789`, `-12.5E+3`,
	`"plain"`, `"esc \" \\ \/ \b \f \n \r \t"`, `"\u00e9\u2028\ud83d\ude00"`, `"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800"`,
	"\"bad utf8 \xff\xfe\"", `"<html> & co"`, "\"\u2029\"", `{"b":1,"a":[1,{"c":null}],"a":2}`,
	` { "x" : [ 1 , 2 ] } `, `{"k":"v"} x`, `{"k" 1}`, `[1,]`, `{"a":1,}`, `01`, `1.`, `-`, `1e`, `"\x"`, `"\u12"`,
	"\"ctl \x01\"", `tru`, `nul`, `[`, `{"a"`, `1e400`, `"\'"`, `[[[[[[]]]]]]`,
}

// ParseJSON accepts exactly what json.Unmarshal into an any does, and
// yields its canonical value: what a decoder using json.Number yields,
// normalized (a number a float64 cannot show stays exact).
func FuzzParseJSON(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want any
		wantErr := json.Unmarshal(data, &want)
		if wantErr == nil {
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber()
			if err := dec.Decode(&want); err != nil {
				t.Fatalf("decode %q with numbers: %v", data, err)
			}
			want = Normalize(want)
		}
		got, err := ParseJSON(data)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("ParseJSON(%q): err %v, json.Unmarshal: %v", data, err, wantErr)
		}
		if err == nil {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("ParseJSON(%q) (-json.Unmarshal +ParseJSON):\n%s", data, diff)
			}
		}
	})
}

// AppendJSON and AppendJSONIndent write the bytes json.Marshal and
// json.MarshalIndent write, for every value JSON can hold.
func FuzzAppendJSON(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		checkEncoding(t, v)
	})
}

func checkEncoding(t *testing.T, v any) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := AppendJSON(nil, v)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("AppendJSON(%#v) = %s, %v; json.Marshal: %s", v, got, err, want)
	}
	want, _ = json.MarshalIndent(v, "", "  ")
	got, err = AppendJSONIndent(nil, v, "  ", 0)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("AppendJSONIndent(%#v) =\n%s\n%v; json.MarshalIndent:\n%s", v, got, err, want)
	}
}

func TestAppendJSONRandomValues(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 3000; i++ {
		checkEncoding(t, randomValue(r, 4))
	}
	for _, v := range []any{1e-7, 1e21, 123456789.0, -0.000001, 5e-324, 1.7976931348623157e308, "\x00\x1f\x7f<>&\u2028"} {
		checkEncoding(t, v)
	}
	// Values that are not canonical are normalized first.
	got, err := AppendJSON(nil, map[string]any{"n": 3, "l": []string{"a"}})
	if err != nil || string(got) != `{"l":["a"],"n":3}` {
		t.Errorf("AppendJSON of non-canonical values = %s, %v", got, err)
	}
	if _, err := AppendJSON(nil, []any{1.0, nan()}); err == nil {
		t.Error("AppendJSON(NaN) did not fail")
	}
}

// A nested value indents as it would inside json.MarshalIndent.
func TestAppendJSONIndentNested(t *testing.T) {
	inner := map[string]any{"a": []any{1.0, map[string]any{}}, "b": "x"}
	whole, _ := json.MarshalIndent(map[string]any{"k": inner}, "", "  ")
	got := append([]byte("{\n  \"k\": "), nil...)
	got, err := AppendJSONIndent(got, inner, "  ", 1)
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, "\n}"...)
	if string(got) != string(whole) {
		t.Errorf("nested indent:\n%s\nwant\n%s", got, whole)
	}
}

func TestParseJSONDepthLimit(t *testing.T) {
	deep := bytes.Repeat([]byte("["), maxDepth+1)
	if _, err := ParseJSON(deep); err == nil {
		t.Error("no error past the depth limit")
	}
}

func nan() float64 {
	var z float64
	return z / z
}

// Large documents share their short strings (and ParseJSONWith a known
// vocabulary): the values are still exactly json.Unmarshal's.
func TestParseJSONLargeAndKnown(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"resources":{`)
	for i := 0; i < 3000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"vm-%d":{"type":"Vm","config":{"size":"small","n":%d,"tags":{"k\u00e9":"v"}},"deps":["net","sg-%d"]}`, i, i, i)
	}
	b.WriteString(`}}`)
	if b.Len() < internMin {
		t.Fatalf("document of %d bytes does not reach internMin", b.Len())
	}
	var want any
	if err := json.Unmarshal(b.Bytes(), &want); err != nil {
		t.Fatal(err)
	}
	for _, known := range []map[string]string{nil, {"type": "type", "Vm": "Vm", "size": "size"}} {
		got, err := ParseJSONWith(b.Bytes(), known)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("ParseJSONWith (-json.Unmarshal +ParseJSONWith):\n%s", diff)
		}
	}
}
