package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfcorpus"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	in := `{"timestamp": "now", "cwd": "/tmp/r/e", "n": 1.0}`
	if err := run(tfcorpus.Normalize, "/tmp/r/e", strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"cwd\": \"@@WORKDIR@@\",\n  \"n\": 1.0\n}\n"; out.String() != want {
		t.Errorf("out = %q, want %q", out.String(), want)
	}
	err := run(tfcorpus.TofuDiagnostics, "/w", strings.NewReader(`{"type":"version"}`+"\n"), &out)
	if err == nil || !strings.Contains(err.Error(), "no error") {
		t.Errorf("diagnostics without an error: err = %v", err)
	}
}
