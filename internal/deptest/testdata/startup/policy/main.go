// Command policy is the hello world with Kyku's policy package linked
// (and with it the Open Policy Agent): what linking it costs every start
// (BenchmarkStartupParts).
package main

import (
	"fmt"

	_ "github.com/kyku/action/internal/policy"
)

func main() { fmt.Println("hello") }
