// Package release tests how Kyku is released and installed: the release
// build script (.github/release/build.sh, run by release.yml) and the
// one-line installer for users without Go (cmd/kyku/install.sh). It holds
// no code of its own; docs/install.md is the user's side of it.
package release
