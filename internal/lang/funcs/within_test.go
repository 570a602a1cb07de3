package funcs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestWithin: with Options.Within, the file functions read the files
// under it and refuse every other way to a file: an absolute path, "..",
// "~", a link pointing out, a glob's directory.
func TestWithin(t *testing.T) {
	repo := t.TempDir()
	outside := t.TempDir()
	secret := filepath.Join(outside, "credentials")
	for path, text := range map[string]string{
		filepath.Join(repo, "infra", "user-data.sh"): "#!/bin/sh",
		filepath.Join(repo, "modules", "x.txt"):      "module file",
		secret:                                       "hunter22",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(secret, filepath.Join(repo, "infra", "link")); err != nil {
		t.Fatal(err)
	}
	opts := Options{BaseDir: filepath.Join(repo, "infra"), Within: repo, Getenv: func(k string) string {
		if k == "HOME" {
			return outside
		}
		return ""
	}}
	table := Table(opts)
	for _, tc := range []struct {
		expr, want string
	}{
		{`file("user-data.sh")`, "#!/bin/sh"},
		{`file("../modules/x.txt")`, "module file"},
		{`file("` + secret + `")`, "is outside the configuration's repository"},
		{`file("../../` + filepath.Base(outside) + `/credentials")`, "is outside the configuration's repository"},
		{`file("~/credentials")`, "is outside the configuration's repository"},
		{`file("link")`, "is outside the configuration's repository"},
		{`filebase64("link")`, "is outside the configuration's repository"},
		{`filemd5("link")`, "is outside the configuration's repository"},
		{`fileexists("` + secret + `")`, "is outside the configuration's repository"},
		{`tostring(length(fileset("` + outside + `", "*")))`, "is outside the configuration's repository"},
		{`templatefile("link", {})`, "is outside the configuration's repository"},
		{`tostring(fileexists("user-data.sh"))`, "true"},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			expr, diags := hclsyntax.ParseExpression([]byte(tc.expr), "t.tf", hcl.Pos{Line: 1, Column: 1})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			v, diags := expr.Value(&hcl.EvalContext{Functions: table})
			got := ""
			if diags.HasErrors() {
				got = diags.Error()
				if strings.Contains(got, "hunter22") {
					t.Errorf("the error shows the file's content: %s", got)
				}
			} else {
				got = v.AsString()
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want it to hold %q", got, tc.want)
			}
		})
	}
}
