package tfmodule

import (
	"fmt"
	"io"
)

// Hooks hear what Install does, for a person to follow. Calls are never
// concurrent.
type Hooks interface {
	// Download: the package at addr (version v, "" for none) is being
	// fetched for the module key.
	Download(key, addr, v string)
	// Install: the module key is installed (version v) in dir, relative to
	// the root module.
	Install(key, v, dir string)
}

// TextHooks writes OpenTofu's `init` lines to W:
//
//	Downloading registry.opentofu.org/acme/net/aws 1.2.0 for net...
//	- net in .terraform/modules/net
type TextHooks struct{ W io.Writer }

// Heading is the line before the hooks' lines: "Initializing modules..."
// (with upgrade, "Upgrading modules...").
func Heading(upgrade bool) string {
	if upgrade {
		return "Upgrading modules..."
	}
	return "Initializing modules..."
}

func (h TextHooks) Download(key, addr, v string) {
	if v != "" {
		fmt.Fprintf(h.W, "Downloading %s %s for %s...\n", addr, v, key)
		return
	}
	fmt.Fprintf(h.W, "Downloading %s for %s...\n", addr, key)
}

func (h TextHooks) Install(key, _, dir string) { fmt.Fprintf(h.W, "- %s in %s\n", key, dir) }

// noHooks hears nothing.
type noHooks struct{}

func (noHooks) Download(string, string, string) {}
func (noHooks) Install(string, string, string)  {}
