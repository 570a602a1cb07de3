package tfmodule

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// Kind is which of OpenTofu's three kinds of module source a Source is.
type Kind int

const (
	// Local is a path starting with ./ or ../: a directory of the calling
	// module's own package, never copied.
	Local Kind = iota
	// Registry is [HOST/]NAMESPACE/NAME/SYSTEM on a module registry.
	Registry
	// Remote is a package fetched from where the address says (git,
	// https, …), go-getter's syntax.
	Remote
)

func (k Kind) String() string {
	switch k {
	case Local:
		return "local"
	case Registry:
		return "registry"
	case Remote:
		return "remote"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// DefaultRegistryHost is the registry of a registry source written
// without a host.
const DefaultRegistryHost = "registry.opentofu.org"

// Source is a module call's source address, normalized as OpenTofu
// normalizes it: String is what modules.json records and what a changed
// source is noticed by.
type Source struct {
	Kind Kind
	// Path is a Local source's cleaned path ("./modules/vpc", "../x").
	Path string
	// Registry is a Registry source's package.
	Registry RegistryPackage
	// Package is a Remote source's package address after go-getter's
	// detection, with its forced getter: "git::https://host/repo.git?ref=v1".
	Package string
	// Subdir is the directory within the package (Registry, Remote):
	// slash-separated, cleaned, never leading out of it.
	Subdir string
}

// RegistryPackage is a module on a registry.
type RegistryPackage struct {
	Host, Namespace, Name, System string
}

func (p RegistryPackage) String() string { return p.Host + "/" + p.forProtocol() }

// forProtocol is the package as the registry's API names it.
func (p RegistryPackage) forProtocol() string { return p.Namespace + "/" + p.Name + "/" + p.System }

func (s Source) String() string {
	switch s.Kind {
	case Local:
		return s.Path
	case Registry:
		if s.Subdir != "" {
			return s.Registry.String() + "//" + s.Subdir
		}
		return s.Registry.String()
	}
	if s.Subdir == "" {
		return s.Package
	}
	if base, query, ok := strings.Cut(s.Package, "?"); ok {
		return base + "//" + s.Subdir + "?" + query
	}
	return s.Package + "//" + s.Subdir
}

// MaybeRelativeError is the error of a source that is no known kind of
// address, which is most often a relative path written without "./".
type MaybeRelativeError struct{ Addr string }

func (e *MaybeRelativeError) Error() string {
	return fmt.Sprintf("Kyku cannot detect a supported external module source type for %s", e.Addr)
}

// ParseSource reads a module call's source as OpenTofu does: a local
// path, else a registry address if it parses as one, else a remote
// address through go-getter's detectors (detect.go).
func ParseSource(raw string) (Source, error) {
	if isLocal(raw) {
		// Backslashes are separators too, "//" is one slash, and the
		// cleaned path keeps a leading "./" unless it starts with "../"
		// (so "../" is "./..", as OpenTofu has it).
		clean := path.Clean(strings.ReplaceAll(raw, `\`, "/"))
		if !strings.HasPrefix(clean, "../") {
			clean = "./" + clean
		}
		return Source{Kind: Local, Path: clean}, nil
	}
	if p, subdir, err := parseRegistry(raw); err == nil {
		return Source{Kind: Registry, Registry: p, Subdir: subdir}, nil
	}
	return parseRemote(raw)
}

func isLocal(raw string) bool {
	for _, p := range []string{"./", "../", `.\`, `..\`} {
		if strings.HasPrefix(raw, p) {
			return true
		}
	}
	return false
}

// splitSubdir splits go-getter's "//subdir" off an address, keeping its
// query on the package: "https://h/p//sub?q" is "https://h/p?q" and "sub".
func splitSubdir(src string) (pkg, subdir string) {
	stop := len(src)
	if i := strings.Index(src, "?"); i >= 0 {
		stop = i
	}
	offset := 0
	if i := strings.Index(src[:stop], "://"); i >= 0 {
		offset = i + 3
	}
	i := strings.Index(src[offset:stop], "//")
	if i < 0 {
		return src, ""
	}
	i += offset
	pkg, subdir = src[:i], src[i+2:]
	if q := strings.Index(subdir, "?"); q >= 0 {
		pkg += subdir[q:]
		subdir = subdir[:q]
	}
	if subdir != "" {
		subdir = path.Clean(subdir)
	}
	return pkg, subdir
}

// escapes: a subdirectory that leads out of its package.
func escapes(subdir string) bool { return subdir == ".." || strings.HasPrefix(subdir, "../") }

// parseRegistry reads [HOST/]NAMESPACE/NAME/SYSTEM[//SUBDIR].
func parseRegistry(raw string) (RegistryPackage, string, error) {
	raw, subdir := splitSubdir(raw)
	if escapes(subdir) {
		return RegistryPackage{}, "", fmt.Errorf("subdirectory path %q leads outside of the module package", subdir)
	}
	parts := strings.Split(raw, "/")
	if len(parts) != 3 && len(parts) != 4 {
		return RegistryPackage{}, "", errors.New("a module registry source address must have either three or four slash-separated components")
	}
	p := RegistryPackage{Host: DefaultRegistryHost}
	if len(parts) == 4 {
		host, err := registryHost(parts[0])
		if err != nil {
			return RegistryPackage{}, "", err
		}
		p.Host = host
		parts = parts[1:]
	}
	if p.Host == "github.com" || p.Host == "bitbucket.org" {
		return RegistryPackage{}, "", fmt.Errorf("can't use %q as a module registry host, because it's reserved for installing directly from version control repositories", p.Host)
	}
	const nameRule = "must be between one and 64 characters, including ASCII letters, digits, dashes, and underscores, where dashes and underscores may not be the prefix or suffix"
	if !registryName(parts[0]) {
		if strings.Contains(parts[0], ".") {
			return RegistryPackage{}, "", errors.New("source address must have three more components after the hostname: the namespace, the name, and the target system")
		}
		return RegistryPackage{}, "", fmt.Errorf("invalid namespace %q: %s", parts[0], nameRule)
	}
	if !registryName(parts[1]) {
		return RegistryPackage{}, "", fmt.Errorf("invalid module name %q: %s", parts[1], nameRule)
	}
	if !registrySystem(parts[2]) {
		if strings.Contains(parts[2], "?") {
			return RegistryPackage{}, "", errors.New("module registry addresses may not include a query string portion")
		}
		return RegistryPackage{}, "", fmt.Errorf("invalid target system %q: must be between one and 64 ASCII letters or digits", parts[2])
	}
	p.Namespace, p.Name, p.System = parts[0], parts[1], parts[2]
	return p, subdir, nil
}

// registryHost normalizes a registry host as OpenTofu compares them:
// lower case, without the default port. Kyku takes ASCII names only
// (OpenTofu also takes internationalized ones).
func registryHost(s string) (string, error) {
	host, port, hasPort := strings.Cut(strings.ToLower(s), ":")
	invalid := hasPort && (port == "" || len(port) > 5 || strings.Trim(port, "0123456789") != "")
	for _, label := range strings.Split(host, ".") {
		invalid = invalid || label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' ||
			strings.Contains(label, "--") || strings.Trim(label, "abcdefghijklmnopqrstuvwxyz0123456789-") != ""
	}
	switch {
	case invalid && strings.Contains(s, "--"):
		return "", fmt.Errorf("invalid module registry hostname %q; internationalized domain names must be given as direct unicode characters, not in punycode", s)
	case invalid && strings.ContainsFunc(s, func(r rune) bool { return r > 0x7f }):
		return "", fmt.Errorf("invalid module registry hostname %q: Kyku takes host names in ASCII only", s)
	case invalid:
		return "", fmt.Errorf("invalid module registry hostname %q", s)
	case !strings.Contains(host, "."):
		return "", errors.New("invalid module registry hostname: must contain at least one dot")
	}
	if hasPort && port != "443" {
		return host + ":" + port, nil
	}
	return host, nil
}

// registryName: a namespace or name, 1–64 ASCII letters, digits, dashes
// and underscores, beginning and ending with a letter or digit.
func registryName(s string) bool {
	if s == "" || len(s) > 64 || !alnum(s[0]) || !alnum(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !alnum(s[i]) && s[i] != '-' && s[i] != '_' {
			return false
		}
	}
	return true
}

// registrySystem: a target system, 1–64 lower-case letters or digits.
func registrySystem(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= 'a' && s[i] <= 'z' || s[i] >= '0' && s[i] <= '9') {
			return false
		}
	}
	return true
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
