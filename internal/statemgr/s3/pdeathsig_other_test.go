//go:build !linux

package s3_test

import "os/exec"

func dieWithParent(*exec.Cmd) {}
