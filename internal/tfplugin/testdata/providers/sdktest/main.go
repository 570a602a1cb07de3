// Command sdktest is a Terraform provider built with
// terraform-plugin-sdk/v2 (protocol 5) for Kyku's plugin client tests.
// Its cloud is a directory of JSON files (package store).
package main

import (
	"github.com/hashicorp/terraform-plugin-sdk/v2/plugin"
)

func main() {
	plugin.Serve(&plugin.ServeOpts{ProviderFunc: newProvider})
}
