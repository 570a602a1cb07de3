//go:build !linux

package durable

import "os"

// DataSync makes f's data durable: a full sync where fdatasync(2) is not
// to be had.
func DataSync(f *os.File) error { return f.Sync() }
