// Command hetzner is the hello world with Kyku's Hetzner provider linked
// (and with it hcloud-go and the Prometheus client hcloud-go imports):
// what linking it costs every start (BenchmarkStartupParts).
package main

import (
	"fmt"

	_ "github.com/kyku/action/internal/provider/hetzner"
)

func main() { fmt.Println("hello") }
