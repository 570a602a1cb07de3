package tfinstall

import (
	"fmt"
	"strings"
)

// DefaultHost is the registry of a source written without one.
const DefaultHost = "registry.opentofu.org"

// Source is a provider's address: HOST/NAMESPACE/TYPE, lower case.
type Source struct {
	Host, Namespace, Type string
}

func (s Source) String() string { return s.Host + "/" + s.Namespace + "/" + s.Type }

// ParseSource reads a provider source as a configuration writes it:
// "hashicorp/null" (on DefaultHost) or "example.com/acme/thing".
// Hostnames and names are case-insensitive and kept in lower case.
func ParseSource(s string) (Source, error) {
	parts := strings.Split(strings.ToLower(s), "/")
	var src Source
	switch len(parts) {
	case 2:
		src = Source{Host: DefaultHost, Namespace: parts[0], Type: parts[1]}
	case 3:
		src = Source{Host: parts[0], Namespace: parts[1], Type: parts[2]}
	default:
		return Source{}, fmt.Errorf("provider source %q: want NAMESPACE/TYPE or HOST/NAMESPACE/TYPE", s)
	}
	if !validHost(src.Host) {
		return Source{}, fmt.Errorf("provider source %q: invalid host %q", s, src.Host)
	}
	if !validName(src.Namespace) {
		return Source{}, fmt.Errorf("provider source %q: invalid namespace %q (letters, digits and dashes)", s, src.Namespace)
	}
	if !validName(src.Type) || strings.HasPrefix(src.Type, "terraform-provider-") {
		return Source{}, fmt.Errorf("provider source %q: invalid type %q (letters, digits and dashes, without terraform-provider-)", s, src.Type)
	}
	return src, nil
}

// validName: a registry namespace or type, [a-z0-9] and inner dashes or
// underscores, at most 64 characters (and never "." or "..": it names a
// directory of the mirror and the cache).
func validName(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// validHost: a DNS name, optionally with a port, as the mirror's first
// directory and the registry's address.
func validHost(s string) bool {
	host, port, hasPort := strings.Cut(s, ":")
	if hasPort {
		if port == "" || len(port) > 5 {
			return false
		}
		for i := 0; i < len(port); i++ {
			if port[i] < '0' || port[i] > '9' {
				return false
			}
		}
	}
	if host == "" || len(host) > 253 {
		return false
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}
