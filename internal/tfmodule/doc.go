// Package tfmodule owns Terraform modules' sources and their installation
// into a root module's working directory, as OpenTofu 1.12's init does:
// local paths (./, ../: not copied, referenced where they are), module
// registries (service discovery "modules.v1", the versions list, the
// package's location by X-Terraform-Get or JSON, or a package the
// registry serves itself; the newest version the constraint allows,
// pre-releases only when named exactly), and go-getter's remote
// addresses that matter in practice (git over https and ssh with ?ref=
// and ?depth=, github.com/… shorthand, git@host:… , https archives and
// X-Terraform-Get pages, //subdir). Remote packages go to
// .terraform/modules/<key> (keys like "net" and "net.subnets"), and
// .terraform/modules/modules.json is written in OpenTofu's format, so
// either tool reads the other's. Check finds the installed modules
// without fetching, and refuses a call not installed or whose source or
// version constraint changed since, in OpenTofu's words.
//
// A module source is code a pull request chooses, run with the run's
// credentials. Kyku fetches over https (and ssh for git) only: plain
// http, git:// and file:// transports are refused, git's included
// (protocol.allow, which also rules its redirects and submodules);
// the registry's API answers only from the host asked, and every
// redirect stays on https (tfinstall's rule). Archives are unpacked with
// no name leading out of the package, no hard links or devices, no entry
// written through a link, bounded sizes (Limits); a package (a git
// checkout too) with a symbolic link resolving outside it is refused.
// Local paths must stay in their remote package (OpenTofu refuses that
// only when the module does not load), and, with a Boundary, local paths
// and absolute paths of the root's own package in the repository. Where
// OpenTofu ignores a manifest's directories, Kyku checks each is where
// init puts it: the manifest is a file a pull request can write.
//
// Nothing runs at package init and nothing reads the environment: git's
// environment, the HTTP client and registry tokens are the caller's. An
// Installer is used by one goroutine at a time.
package tfmodule
