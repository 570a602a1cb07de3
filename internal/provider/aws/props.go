package aws

import (
	b64 "encoding/base64"
	"fmt"
	"sort"

	"github.com/kyku/action/internal/provider"
)

func sortedStrs(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	return out
}

func required(r provider.Resource, keys ...string) error {
	for _, k := range keys {
		if _, ok := r.Properties[k]; !ok {
			return fmt.Errorf("%s %q: property %s is required on aws", r.Type, r.Name, k)
		}
	}
	return nil
}

func base64(s string) string { return b64.StdEncoding.EncodeToString([]byte(s)) }
