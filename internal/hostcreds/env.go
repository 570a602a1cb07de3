package hostcreds

import "strings"

// envPrefix starts the name of a host's token variable.
const envPrefix = "TF_TOKEN_"

// fromEnviron reads the TF_TOKEN_<host> variables of environ ("k=v"),
// host names encoded as OpenTofu reads them: "__" for "-", "_" for ".",
// Unicode or punycode. A name that is no valid host is ignored, as
// OpenTofu ignores it.
func fromEnviron(environ []string) map[string]string {
	out := map[string]string{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, envPrefix) {
			continue
		}
		raw := strings.ReplaceAll(name[len(envPrefix):], "__", "-")
		raw = strings.ReplaceAll(raw, "_", ".")
		host, err := tolerant(raw)
		if err != nil {
			continue
		}
		out[host] = value
	}
	return out
}

// EnvName is the variable whose value is host's token, in the encoding
// that works in every shell ("_" for ".", "__" for "-"; an IDN in
// punycode): for messages and documentation.
func EnvName(host string) string {
	h, err := tolerant(host)
	if err != nil {
		h = host
	}
	h = strings.ReplaceAll(h, "-", "__")
	return envPrefix + strings.ReplaceAll(h, ".", "_")
}
