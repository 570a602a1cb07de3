package tfroots_test

import (
	"strings"
	"testing"
)

// TestLoadRefusesProviderFunctions: a root calling a provider's function
// is refused at the call, in one line, when the loader is given no way
// to run it (the bot's, which starts no provider): left unknown, the call
// would make the plan show less than apply does.
func TestLoadRefusesProviderFunctions(t *testing.T) {
	_, err := load(t, map[string]string{"r/main.tf": `terraform {
  required_providers {
    time = { source = "hashicorp/time" }
  }
}
output "year" {
  value = provider::time::rfc3339_parse("2024-01-02T03:04:05Z").year
}
`})
	if err == nil {
		t.Fatal("Load accepted a call of a provider's function")
	}
	want := `r/main.tf:7:11: Failed to load provider functions: The functions of provider "time" (hashicorp/time) could not be listed: the bot does not run providers' functions yet (kyku plan and apply do, and the Action).`
	if !strings.Contains(err.Error(), want) {
		t.Errorf("Load: %v\nwant %s", err, want)
	}
}
