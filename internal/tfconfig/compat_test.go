package tfconfig_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfconfig"
)

// TestVersionCompatibility: which OpenTofu versions a module says it
// works with, as OpenTofu 1.12 reads it. required_version in a .tf file
// pins Terraform and is ignored (a repository pinning Terraform 1.5 plans
// as is); in a .tofu file, and a language block's compatible_with, it is
// checked, and a module that excludes the version Kyku follows is
// "Incompatible module", said alone (its other errors may be a later
// version's language).
func TestVersionCompatibility(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // nil: loads
		not   []string
		warn  []string // when it loads
	}{
		{name: ".tf pins Terraform", files: map[string]string{
			"main.tf":  "terraform {\n  required_version = \"~> 1.5.0\"\n}\nresource \"terraform_data\" \"x\" {}\n",
			"other.tf": "terraform {\n  required_version = \"not a constraint\"\n}\n",
		}},
		{name: ".tofu excludes", files: map[string]string{
			"main.tf":       "resource \"terraform_data\" \"x\" {\n  nope = 1\n}\n",
			"versions.tofu": "terraform {\n  required_version = \"< 1.0\"\n}\n",
		}, want: []string{"versions.tofu:2:3: Incompatible module: This module is not compatible with OpenTofu v1.12.6"}, not: []string{"nope"}},
		{name: ".tofu allows", files: map[string]string{
			"main.tofu": "terraform {\n  required_version = \">= 1.12.0\"\n}\nresource \"terraform_data\" \"x\" {}\n",
		}},
		{name: "compatible_with allowing versions before it", files: map[string]string{
			"main.tf": "language {\n  compatible_with {\n    opentofu = \">= 1.0\"\n  }\n}\n",
		}, warn: []string{"main.tf:3:5: Ineffective version constraint"}},
		{name: ".tofu.json excludes", files: map[string]string{
			"main.tofu.json": `{"terraform": {"required_version": ">= 9.0"}}`,
		}, want: []string{"main.tofu.json:1:16: Incompatible module"}},
		{name: "compatible_with excludes, in a module", files: map[string]string{
			"main.tf":        "module \"m\" {\n  source = \"./m\"\n}\n",
			"m/language.tf":  "language {\n  compatible_with {\n    opentofu  = \">= 1.13\"\n    terraform = \"whatever\"\n  }\n}\n",
			"m/resources.tf": "resource \"terraform_data\" \"x\" {\n  input = var.undeclared\n}\n",
		}, want: []string{"m/language.tf:3:5: Incompatible module"}, not: []string{"undeclared"}},
		{name: "language settings", files: map[string]string{
			"main.tf": "language {\n  edition     = tofu2030\n  experiments = [shiny]\n  compatible_with {\n    opentofu = \">= 1.12.0\"\n  }\n  compatible_with {\n    opentofu = \">= 1.12.1\"\n  }\n}\n",
		}, want: []string{
			"main.tf:2:17: Unsupported language edition: OpenTofu v1.12.6 only supports language edition tofu2024. This module requires a newer version of OpenTofu CLI.",
			`main.tf:3:18: Unknown experiment keyword: There is no current experiment with the keyword "shiny".`,
			"main.tf:1:1: Duplicate compatible_with block",
		}},
		{name: "prerelease", files: map[string]string{
			"main.tofu": "terraform {\n  required_version = \">= 1.12.0-beta1\"\n}\n",
		}, want: []string{"main.tofu:2:3: Invalid required_version constraint: Prerelease version constraints are not supported"}},
		{name: "language in an override file", files: map[string]string{
			"main.tf":     "resource \"terraform_data\" \"x\" {}\n",
			"override.tf": "language {\n  compatible_with {\n    opentofu = \">= 1.12.0\"\n  }\n}\n",
		}, want: []string{"override.tf:1:1: Language selections in override file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tc.files)
			m, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				cfg, err := tfconfig.Expand(m, tfconfig.Inputs{})
				if err != nil {
					t.Fatal(err)
				}
				got := fmt.Sprint(cfg.Warnings)
				for _, w := range tc.warn {
					if !strings.Contains(got, w) {
						t.Errorf("no warning %q in %s", w, got)
					}
				}
				return
			}
			if err == nil {
				t.Fatalf("loaded; want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("no %q in:\n%v", w, err)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(err.Error(), n) {
					t.Errorf("%q said beside the incompatibility:\n%v", n, err)
				}
			}
		})
	}
}
