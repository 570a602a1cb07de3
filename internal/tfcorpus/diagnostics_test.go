package tfcorpus

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTofuDiagnostics(t *testing.T) {
	lines := `{"@level":"info","@message":"OpenTofu 1.12.6","type":"version"}
{"@level":"warn","type":"diagnostic","diagnostic":{"severity":"warning","summary":"Deprecated","range":{"filename":"main.tf","start":{"line":1,"column":1}}}}
{"@level":"error","type":"diagnostic","diagnostic":{"severity":"error","summary":"Invalid for_each argument","detail":"in /tmp/run/e/main.tf","range":{"filename":"main.tf","start":{"line":16,"column":14}}}}
{"@level":"error","type":"diagnostic","diagnostic":{"severity":"error","summary":"Invalid count argument","range":{"filename":"main.tf","start":{"line":9,"column":11}}}}
{"@level":"error","type":"diagnostic","diagnostic":{"severity":"error","summary":"No configuration files"}}
`
	golden, err := TofuDiagnostics([]byte(lines), "/tmp/run/e")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadDiagnostics(golden)
	if err != nil {
		t.Fatal(err)
	}
	want := []Diagnostic{
		{Summary: "No configuration files"},
		{Summary: "Invalid count argument", Filename: "main.tf", Line: 9, Column: 11},
		{Summary: "Invalid for_each argument", Detail: "in @@WORKDIR@@/main.tf", Filename: "main.tf", Line: 16, Column: 14},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("TofuDiagnostics (-want +got):\n%s", diff)
	}

	if _, err := TofuDiagnostics([]byte(strings.SplitAfter(lines, "\n")[1]), "/w"); err == nil || !strings.Contains(err.Error(), "no error") {
		t.Errorf("a warning alone: err = %v, want one saying there is no error", err)
	}
	if _, err := ReadDiagnostics([]byte(`{"diagnostics": []}`)); err == nil {
		t.Error("ReadDiagnostics of none: no error")
	}
}

func TestCompareDiagnostics(t *testing.T) {
	tofu := []Diagnostic{
		{Summary: "Invalid for_each argument", Detail: "OpenTofu's words", Filename: "main.tf", Line: 16, Column: 14},
		{Summary: "Invalid for_each argument", Filename: "main.tf", Line: 27, Column: 14},
	}
	cases := []struct {
		name string
		got  []Diagnostic
		want []string
	}{
		{"same, other details and columns", []Diagnostic{
			{Summary: "Invalid for_each argument", Detail: "Kyku's words", Filename: "main.tf", Line: 27, Column: 3},
			{Summary: "Invalid for_each argument", Filename: "main.tf", Line: 16},
		}, nil},
		{"none: Kyku planned", nil, []string{
			"missing error: main.tf:16: Invalid for_each argument", "missing error: main.tf:27: Invalid for_each argument"}},
		{"other line", []Diagnostic{
			{Summary: "Invalid for_each argument", Filename: "main.tf", Line: 16},
			{Summary: "Invalid for_each argument", Filename: "main.tf", Line: 28},
		}, []string{"missing error: main.tf:27: Invalid for_each argument", "extra error: main.tf:28: Invalid for_each argument"}},
		{"other summary", []Diagnostic{
			{Summary: "Invalid for_each argument", Filename: "main.tf", Line: 16},
			{Summary: "Unknown for_each", Filename: "main.tf", Line: 27},
		}, []string{"missing error: main.tf:27: Invalid for_each argument", "extra error: main.tf:27: Unknown for_each"}},
		{"other file", []Diagnostic{
			{Summary: "Invalid for_each argument", Filename: "main.tf", Line: 16},
			{Summary: "Invalid for_each argument", Filename: "other.tf", Line: 27},
		}, []string{"missing error: main.tf:27: Invalid for_each argument", "extra error: other.tf:27: Invalid for_each argument"}},
		{"one more", []Diagnostic{
			{Summary: "Invalid for_each argument", Filename: "main.tf", Line: 16},
			{Summary: "Invalid for_each argument", Filename: "main.tf", Line: 16},
			{Summary: "Invalid for_each argument", Filename: "main.tf", Line: 27},
		}, []string{"extra error: main.tf:16: Invalid for_each argument"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, CompareDiagnostics(tofu, tc.got)); diff != "" {
				t.Errorf("CompareDiagnostics (-want +got):\n%s", diff)
			}
		})
	}
}
