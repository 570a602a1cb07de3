package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// randomFile builds a state with every field sometimes empty.
func randomFile(r *rand.Rand) *File {
	f := New([]string{"", "abcd1234"}[r.IntN(2)], "lineage-"+fmt.Sprint(r.IntN(9)), []string{"", "prod", "a<b>&c"}[r.IntN(3)])
	f.Metadata.Serial = int64(r.IntN(1000))
	for i := r.IntN(6); i > 0; i-- {
		name := fmt.Sprintf("res-%d", r.IntN(20))
		res := &Resource{Name: name, Type: []string{"Vm", "Vpc"}[r.IntN(2)]}
		if r.IntN(2) == 0 {
			res.CloudName, res.ProviderID = "p-"+name, fmt.Sprint(10000000+r.IntN(100))
		}
		if r.IntN(3) > 0 {
			res.Config = map[string]any{"size": "small", "ports": []any{80.0, 443.5}, "tags": map[string]any{"k": "v\u2028"}, "on": true, "none": nil, "empty": []any{}}
		}
		if r.IntN(2) == 0 {
			res.Outputs = map[string]any{"id": res.ProviderID, "ip": "10.0.0.1"}
		}
		if r.IntN(2) == 0 {
			res.Dependencies = []string{"net", "sg"}[:1+r.IntN(2)]
		}
		res.Protect = r.IntN(3) == 0
		if r.IntN(3) == 0 { // a Terraform provider's resource
			res.SchemaVersion, res.Private = int64(r.IntN(3)), []byte(`{"e2bfb730":{"create":6e+11}}`)[:r.IntN(28)]
			if len(res.Private) == 0 {
				res.Private = nil
			}
		}
		if r.IntN(2) == 0 {
			res.Basis = &Basis{Config: "c" + name, Provider: "p", ReadAt: time.Date(2026, 12, 6, 13, 0, r.IntN(60), r.IntN(3)*1000, time.UTC)}
			if r.IntN(2) == 0 {
				res.Basis.Version = "1.2.3"
			}
		}
		if r.IntN(2) == 0 {
			res.Sensitive = []string{"config", "tags"}[:1+r.IntN(2)]
			if r.IntN(2) == 0 {
				res.SensitiveWithin = map[string][]string{"config": []string{".admin.password", `["api-key"]`, "[1]"}[:1+r.IntN(3)]}
			}
		}
		f.Resources[name] = res
	}
	if r.IntN(2) == 0 {
		f.Outputs = map[string]any{"webIp": "203.0.113.1", "n": 2.0}
		if r.IntN(2) == 0 {
			f.OutputSensitivity = map[string]bool{"webIp": false, "n": r.IntN(2) == 0}
		}
	}
	if r.IntN(2) == 0 {
		f.OutputTypes = map[string]any{"tags": []any{"map", "string"}, "webIp": "string"}
	}
	if r.IntN(2) == 0 {
		f.Interrupted = map[string]string{`aws_instance.web["a"]`: "aws_instance", "b<1>": "fwtest_item"}
	}
	return f
}

// Encode writes the bytes json.MarshalIndent writes; Decode reads them
// back as json.Unmarshal would; AppendEntry writes what json.Marshal does.
func TestCodecMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 500; i++ {
		f := randomFile(r)
		want, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		got, err := Encode(f)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Fatalf("Encode (-json.MarshalIndent +Encode):\n%s", diff)
		}
		back, err := Decode("state.json", got)
		if err != nil {
			t.Fatal(err)
		}
		var viaJSON File
		if err := json.Unmarshal(got, &viaJSON); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&viaJSON, back); diff != "" {
			t.Fatalf("Decode (-json.Unmarshal +Decode):\n%s", diff)
		}
		for _, res := range append([]*Resource{nil}, values(f.Resources)...) {
			e := Entry{Seq: int64(i), BaseSerial: 3, Lineage: "l", Op: OpPut, Name: "x&y", Resource: res}
			want, _ := json.Marshal(e)
			got, err := AppendEntry(nil, e)
			if err != nil || string(got) != string(want) {
				t.Fatalf("AppendEntry = %s, %v; json.Marshal: %s", got, err, want)
			}
		}
		for _, e := range []Entry{
			{Seq: int64(i), BaseSerial: 3, Lineage: "l", Op: OpMove, Name: `web["a"]`, From: "app<1>"},
			{Seq: int64(i), BaseSerial: 3, Lineage: "l", Op: OpIntent, Name: `web["a"]`, Type: "fwtest_item"},
		} {
			want, _ := json.Marshal(e)
			if got, err := AppendEntry(nil, e); err != nil || string(got) != string(want) {
				t.Fatalf("AppendEntry = %s, %v; json.Marshal: %s", got, err, want)
			}
		}
	}
}

func values(m map[string]*Resource) []*Resource {
	var out []*Resource
	for _, r := range m {
		out = append(out, r)
	}
	return out
}

// EncodeTo writes exactly what Encode returns, in chunks (a state larger
// than one), and reports the writer's error.
func TestEncodeToStreamsEncode(t *testing.T) {
	f := New("", "lineage-1", "prod")
	for i := range 2000 {
		name := fmt.Sprintf("res-%04d", i)
		f.Resources[name] = &Resource{Name: name, Type: "Vm", CloudName: "p-" + name, ProviderID: fmt.Sprint(10000000 + i),
			Config: map[string]any{"size": "small", "ports": []any{80.0, 443.0}}, Outputs: map[string]any{"ip": "10.0.0.1"}}
	}
	want, err := Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 3*chunk {
		t.Fatalf("the state is %d bytes: too small to stream in chunks", len(want))
	}
	var w chunkWriter
	if err := EncodeTo(&w, f); err != nil {
		t.Fatal(err)
	}
	if string(w.got) != string(want) {
		t.Error("EncodeTo wrote other bytes than Encode returns")
	}
	if w.writes < 3 || w.largest > 2*chunk+4096 {
		t.Errorf("%d writes, the largest %d bytes: not streamed in chunks of about %d", w.writes, w.largest, chunk)
	}
	boom := fmt.Errorf("disk full")
	if err := EncodeTo(failingWriter{boom}, f); err == nil || !errors.Is(err, boom) {
		t.Errorf("EncodeTo to a failing writer: %v", err)
	}
}

type chunkWriter struct {
	got             []byte
	writes, largest int
}

func (w *chunkWriter) Write(b []byte) (int, error) {
	w.got = append(w.got, b...)
	w.writes++
	w.largest = max(w.largest, len(b))
	return len(b), nil
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }
