package hetzner

import (
	"fmt"
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/property"
	"github.com/kyku/action/internal/value"
)

// Labels Kyku puts on every object, and the ones it keeps its own
// bookkeeping in (see isKykuLabel): Read never reports them as user tags,
// and CheckResource refuses user tags using them.
const (
	labelManaged = "kyku-managed"
	labelPrefix  = "kyku-prefix"
	labelName    = "kyku-name"
	labelAZs     = "kyku-azs"     // Vpc: distributeAcrossAzs
	labelNetwork = "kyku-network" // SecurityGroup: its network
	labelSize    = "kyku-size"    // Vm: the size as written
	labelImage   = "kyku-image"   // Vm: the image as written
	labelAttach  = "kyku-attach"  // Vm: which of network/subnet were asked for
	keySSH       = "kyku-ssh/"    // Vm: kyku-ssh/<key ID> per SSH key
	keySubnet    = "kyku-subnet/" // network: kyku-subnet/<cidr> = subnet cloud name
	keyPublic    = "kyku-public/" // network: kyku-public/<cidr> = "true"|"false"
	keyTG        = "kyku-tg/"     // server: kyku-tg/<cloud name> = "<protocol>-<port>"
)

// kykuKeys and kykuPrefixes are Kyku's own label keys: never reported as
// tags, refused as user tags.
var (
	kykuKeys = map[string]bool{
		labelManaged: true, labelPrefix: true, labelName: true, labelAZs: true, labelNetwork: true,
		labelSize: true, labelImage: true, labelAttach: true,
	}
	kykuPrefixes = []string{keySSH, keySubnet, keyPublic, keyTG}
)

func isKykuLabel(k string) bool {
	if kykuKeys[k] {
		return true
	}
	for _, p := range kykuPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// labelRE is a Hetzner label value (and label name, when non-empty).
var labelRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([a-zA-Z0-9]([a-zA-Z0-9_.-]{0,61}[a-zA-Z0-9])?)?$`)
})

// wantLabels is the full label set of r: the user's tags plus Kyku's own.
func wantLabels(r provider.Resource, extra map[string]string) map[string]string {
	l := property.Tags(r.Properties, extra)
	l[labelManaged] = "true"
	l[labelPrefix] = r.Prefix
	l[labelName] = value.SafeName(r.Name) // web[0] → web-0: a label value
	return l
}

// keep copies into want the labels of have whose keys start with one of
// prefixes (bookkeeping other resources write on this object).
func keep(want, have map[string]string, prefixes ...string) map[string]string {
	for k, v := range have {
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				want[k] = v
			}
		}
	}
	return want
}

// managed refuses an object that carries a Kyku cloud name but not Kyku's
// label: it is someone else's, and Kyku never adopts it.
func managed(what, name string, l map[string]string) error {
	if l[labelManaged] != "true" {
		return fmt.Errorf("a %s named %q exists but is not managed by Kyku (no %s=true label); rename the resource or remove that object", what, name, labelManaged)
	}
	return nil
}

// selector is the label selector of the Kyku objects of one deploy prefix.
func prefixSelector(prefix string) string {
	return labelManaged + "=true," + labelPrefix + "=" + prefix
}

// parseID parses a numeric Hetzner ID. A non-numeric one is a stale Kyku
// name or garbage: reported as not found, so that an idempotent create by
// name takes over.
func parseID(id string) (int64, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a Hetzner ID: %w", id, provider.ErrNotFound)
	}
	return n, nil
}

// refID parses a reference property (a provider ID) of r. A Kyku name in
// its place is a permanent error.
func refID(r provider.Resource, prop string) (int64, error) {
	s, _ := r.Properties[prop].(string)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("property %s: %q is not a Hetzner ID (a reference must resolve to the provider ID)", prop, s)
	}
	return n, nil
}

// refIDs parses a list of references.
func refIDs(r provider.Resource, prop string) ([]int64, error) {
	var out []int64
	for _, s := range property.Strings(r.Properties, prop) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("property %s: %q is not a Hetzner ID (a reference must resolve to the provider ID)", prop, s)
		}
		out = append(out, n)
	}
	return out, nil
}

// subnetID is Kyku's provider ID for a Hetzner subnet, which has no ID of
// its own: "<network ID>/<cidr>", e.g. "4711/10.0.1.0/24".
func subnetID(network int64, cidr string) string {
	return strconv.FormatInt(network, 10) + "/" + cidr
}

func parseSubnetID(id string) (int64, *net.IPNet, error) {
	netPart, cidr, ok := strings.Cut(id, "/")
	n, err := strconv.ParseInt(netPart, 10, 64)
	if !ok || err != nil || n <= 0 {
		return 0, nil, fmt.Errorf("%q is not a Hetzner subnet ID (<network ID>/<cidr>): %w", id, provider.ErrNotFound)
	}
	_, ipn, err := net.ParseCIDR(cidr)
	if err != nil || ipn.String() != cidr {
		return 0, nil, fmt.Errorf("%q is not a Hetzner subnet ID (<network ID>/<cidr>): %w", id, provider.ErrNotFound)
	}
	return n, ipn, nil
}

// cidrKey turns a CIDR into a label name: 10.0.1.0/24 → 10.0.1.0-24.
func cidrKey(cidr string) string { return strings.ReplaceAll(cidr, "/", "-") }

// tgID is the provider ID of a target group: the label key its members
// carry, which is also the load balancer's label selector.
func tgID(cloudName string) (string, error) {
	if cloudName == "" || !labelRE().MatchString(cloudName) {
		return "", fmt.Errorf("cloud name %q cannot be a Hetzner label (at most 63 letters, digits, '-', '_', '.', starting and ending with a letter or digit)", cloudName)
	}
	return keyTG + cloudName, nil
}

func parseTGID(id string) (string, error) {
	name, ok := strings.CutPrefix(id, keyTG)
	if !ok || name == "" || !labelRE().MatchString(name) {
		return "", fmt.Errorf("%q is not a Kyku target group ID (kyku-tg/<cloud name>): %w", id, provider.ErrNotFound)
	}
	return name, nil
}

// idList renders IDs as a sorted list of strings; nil when empty.
func idList(ids []int64) []any {
	if len(ids) == 0 {
		return nil
	}
	ss := make([]string, len(ids))
	for i, id := range ids {
		ss[i] = strconv.FormatInt(id, 10)
	}
	sort.Strings(ss)
	return property.List(ss)
}
