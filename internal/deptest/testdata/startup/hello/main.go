// Command hello is the Go hello world BenchmarkVersion runs beside `kyku
// version`: the least any Go program costs to start on the machine.
package main

import "fmt"

func main() { fmt.Println("hello") }
