//go:build !linux

package tfplugin

import "syscall"

// keeperChildAttr: elsewhere the keeper's own kill ends the provider
// (Provider.kill kills both).
func keeperChildAttr() *syscall.SysProcAttr { return nil }
