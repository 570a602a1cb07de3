package main

import (
	"os"

	"github.com/hashicorp/terraform-plugin-framework/provider"
)

// missingCredentials fails ConfigureProvider as a cloud's provider does
// without credentials, when FWTEST_REQUIRE_CREDENTIALS is set in its
// environment and FWTEST_CREDENTIALS is not: validating configurations,
// which never configures the provider, must succeed all the same.
func missingCredentials(resp *provider.ConfigureResponse) bool {
	if os.Getenv("FWTEST_REQUIRE_CREDENTIALS") == "" || os.Getenv("FWTEST_CREDENTIALS") != "" {
		return false
	}
	resp.Diagnostics.AddError("No credentials", "the test cloud needs credentials: set FWTEST_CREDENTIALS")
	return true
}
