//go:build !linux

package tfplugin

import (
	"os"
	"syscall"
)

// keeperChildAttr: elsewhere the keeper's own kill ends the provider
// (Provider.kill kills both).
func keeperChildAttr() *syscall.SysProcAttr { return nil }

// datasync writes f to disk.
func datasync(f *os.File) error { return f.Sync() }
