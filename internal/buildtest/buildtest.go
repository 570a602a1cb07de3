// Package buildtest builds the binaries tests run as processes (Kyku's
// commands, the test providers of package tfplugintest) with the settings
// Kyku ships with (release.yml and the Dockerfile: CGO_ENABLED=0,
// -trimpath). .ci/run vets with the same settings, so on a cold machine
// these builds reuse every package vet compiled instead of compiling the
// whole dependency tree once more in another configuration (cgo on, paths
// kept), which cost a cold run minutes.
package buildtest

import (
	"os"
	"os/exec"
)

// Command is `go build -trimpath ARGS…` with CGO_ENABLED=0, run in the
// test's working directory unless the caller sets Dir.
func Command(args ...string) *exec.Cmd {
	cmd := exec.Command("go", append([]string{"build", "-trimpath"}, args...)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	return cmd
}
