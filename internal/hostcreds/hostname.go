package hostcreds

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// display is a liberal profile used to read a host name given in
// punycode (as an environment variable may carry it) back to Unicode.
var display = idna.New(idna.MapForLookup(), idna.Transitional(true))

// canonical is given's comparison form, as OpenTofu's: labels mapped for
// lookup (lower case) and IDNs in punycode, a port only when it is not
// 443. A label already in punycode is refused, as OpenTofu refuses one in
// a configuration.
func canonical(given string) (string, error) {
	name, port, err := splitPort(given)
	if err != nil {
		return "", err
	}
	if name == "" {
		return "", errors.New("empty host name")
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" {
			return "", fmt.Errorf("host name %q has an empty label", name)
		}
		if strings.HasPrefix(strings.ToLower(label), "xn--") {
			return "", fmt.Errorf("host name label %q is in punycode; give it in Unicode", label)
		}
	}
	ascii, err := idna.Lookup.ToASCII(name)
	if err != nil {
		return "", fmt.Errorf("host name %q: %w", name, err)
	}
	return ascii + port, nil
}

// tolerant is canonical for a name that may already be in punycode (an
// environment variable's, a URL's): it is read back to Unicode first.
func tolerant(given string) (string, error) {
	name, port, err := splitPort(given)
	if err != nil {
		return "", err
	}
	if a, err := display.ToASCII(name); err == nil {
		if u, err := display.ToUnicode(a); err == nil {
			name = u
		}
	}
	return canonical(name + port)
}

// splitPort splits "name:port" and normalizes the port (":443" is none).
func splitPort(given string) (name, port string, err error) {
	name, p, ok := strings.Cut(given, ":")
	if !ok {
		return name, "", nil
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 0 || n > 65535 {
		return "", "", fmt.Errorf("host %q: bad port %q", given, p)
	}
	if n == 443 {
		return name, "", nil
	}
	return name, ":" + strconv.Itoa(n), nil
}
