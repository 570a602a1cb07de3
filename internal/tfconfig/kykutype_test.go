package tfconfig_test

import (
	"testing"

	"github.com/kyku/action/internal/tfconfig"
)

// TestKykuType: the type Kyku's model gives a state's resource by the
// provider configuration the state records, as the configuration types
// its resources: an alias's (aws-west_instance), a local name other than
// the type's prefix (amazon_instance), and the type itself otherwise.
func TestKykuType(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"main.tf": `terraform {
  required_providers {
    aws    = { source = "hashicorp/aws" }
    amazon = { source = "example/aws" }
  }
}
provider "aws" {
  alias = "west"
}
`})
	m, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ typ, provider, want string }{
		{"aws_instance", `provider["registry.opentofu.org/hashicorp/aws"]`, "aws_instance"},
		{"aws_instance", `provider["registry.opentofu.org/hashicorp/aws"].west`, "aws-west_instance"},
		{"aws_instance", `provider["registry.terraform.io/hashicorp/aws"].west`, "aws-west_instance"}, // a state Terraform wrote
		{"aws_instance", `provider["registry.opentofu.org/example/aws"]`, "amazon_instance"},
		{"random_pet", `provider["registry.opentofu.org/hashicorp/random"].x`, "random-x_pet"},
		{"aws_instance", `module.m.provider["registry.opentofu.org/hashicorp/aws"]`, "aws_instance"},
		{"aws_instance", `nonsense`, "aws_instance"},
	} {
		if got := tfconfig.KykuType(m, tt.typ, tt.provider); got != tt.want {
			t.Errorf("KykuType(%s, %s) = %s, want %s", tt.typ, tt.provider, got, tt.want)
		}
	}
}
