// Command fwtest is a Terraform provider built with
// terraform-plugin-framework (protocol 6) for Kyku's plugin client tests.
// Its cloud is a directory of JSON files (package store).
package main

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
)

func main() {
	err := providerserver.Serve(context.Background(), newProvider, providerserver.ServeOpts{
		Address:         "registry.opentofu.org/kyku/fwtest",
		ProtocolVersion: 6,
	})
	if err != nil {
		log.Fatal(err)
	}
}
