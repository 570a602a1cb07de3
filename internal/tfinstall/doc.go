// Package tfinstall owns where Terraform provider plugins come from and
// which ones Kyku accepts: provider sources (HOST/NAMESPACE/TYPE; a
// source without host is on registry.opentofu.org), version constraints
// as Terraform writes them (hashicorp/go-version), a filesystem mirror
// in either of OpenTofu's layouts (unpacked,
// HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/terraform-provider-TYPE_vVERSION…,
// or packed, HOST/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip
// as MirrorWriter and `tofu providers mirror` write it; named by
// KYKU_PLUGIN_MIRROR), a client of the provider registry protocol
// (service discovery, versions, download; the SHA256SUMS document must be
// signed by one of the registry's keys for the provider, checked with
// ProtonMail's openpgp as OpenTofu does, by package pgpverify through
// Registry.Verify, and list the archive's
// checksum), and the lock file.
//
// The lock file, .kyku.lock.hcl beside a Kyku configuration, is written
// in Terraform's .terraform.lock.hcl format, byte for byte as OpenTofu
// writes it (a test holds the two to it): users and their tools know it
// and hashes carry over. It records per provider the version chosen, the
// constraint it was chosen under and its hashes: h1 of an unpacked
// package (go.sum's directory hash), zh of each platform's archive from
// the signed SHA256SUMS. The name is Kyku's own so that a directory with
// both a Kyku configuration and Terraform's keeps two locks that neither
// rewrites. A directory of .tf files is Terraform's configuration, and
// its lock Terraform's own .terraform.lock.hcl (lockname.go): a team's
// lock is honoured as it is, its header kept when Kyku writes it. A package matching
// none of its provider's hashes is refused (ChecksumError); a locked
// version outside the constraint asks for an upgrade (ErrLockedVersion).
//
// Installer.Install does both the init (no lock entry: choose, fetch,
// record) and the check of every run (lock entry: find the package, hash
// it, refuse it unless it matches). With a mirror set only the mirror is
// used (no network: what CI and air-gapped runs want, and predictable);
// otherwise packages are fetched into a cache directory (the Action caches
// it between runs; the bot's tenants share one), each stored under the
// hash of its content (HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/h1-<hex>/): a
// cached package matching one of the lock's h1 hashes is used without a
// download, and otherwise the package is fetched, checked, and put under
// its own hash. A package one lock refuses is removed from its own
// temporary directory only, so it never takes away a package another lock
// trusts (cache.go). Archives are unpacked into a temporary directory and
// renamed: plain files only, no names escaping the package, bounded sizes.
//
// The package reads no environment and no clock; HTTP goes through the
// caller's client, and only HTTPS is spoken (redirects.go). Nothing runs
// at package init. An Installer is used by one goroutine at a time, and
// Installers in any number of goroutines and processes may share a
// CacheDir; Registry is safe for concurrent use.
//
// # For the front doors (phase 2 of "any Terraform provider")
//
// `kyku init` (and `kyku providers lock`) runs Install with the
// configuration's `providers:` section and writes the lock; plan and
// apply run Install with the lock and never write it unless asked.
// A provider binary is code run with the run's credentials, and a pull
// request can write the configuration and the lock: the sources and
// namespaces a repository may use, and whether a PR may change them or
// the lock, must be decided where the PR cannot reach (the Action's
// inputs of the base branch, the bot's server-side settings), and a
// changed `providers:` section or lock shown in the review.
package tfinstall
