//go:build !unix

package tfplugin

import "os"

// lockLog: no lock where Kyku does not run.
func lockLog(*os.File) error { return nil }

// lockNote: no lock where Kyku does not run.
func lockNote(*os.File) error { return nil }
