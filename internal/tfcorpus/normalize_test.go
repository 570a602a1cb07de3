package tfcorpus

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormalize(t *testing.T) {
	in := `{"timestamp": "2026-12-06T10:00:00Z", "terraform_version": "1.12.6",
	  "z": {"b": 9007199254740993, "a": 1.50},
	  "paths": ["/tmp/rec/run/e/files", "/tmp/rec/run/e", "/tmp/rec/run/elsewhere", "cd /tmp/rec/run/e; ls"],
	  "/tmp/rec/run/e/key": "<b>&</b>"}`
	want := `{
  "@@WORKDIR@@/key": "<b>&</b>",
  "paths": [
    "@@WORKDIR@@/files",
    "@@WORKDIR@@",
    "/tmp/rec/run/elsewhere",
    "cd @@WORKDIR@@; ls"
  ],
  "terraform_version": "1.12.6",
  "z": {
    "a": 1.50,
    "b": 9007199254740993
  }
}
`
	got, err := Normalize([]byte(in), "/tmp/rec/run/e/")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("Normalize (-want +got):\n%s", diff)
	}
	if _, err := Normalize([]byte(`[1]`), "/x"); err == nil {
		t.Error("Normalize of a JSON array: no error")
	}
	if _, err := Normalize([]byte(`{}`), ""); err == nil {
		t.Error("Normalize without a working directory: no error")
	}
}
