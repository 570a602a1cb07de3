// Command hello is what buildtest's test builds.
package main

func main() { println("hello") }
