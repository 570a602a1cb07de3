package value

import (
	"strconv"
	"strings"
)

// Addresses. A resource written with count or forEach has one instance per
// index or key, addressed name[0] or name["key"]; every other resource is
// addressed by its name alone. An address is what a plan, the state, a
// comment and a command name a resource by, and what a reference names:
// ${web[0]}, ${edge["a"].id}. ${web[*]} (every instance) exists only in the
// configuration, which expands it.

// IndexKind says what follows a resource name in an address.
type IndexKind int

const (
	NoIndex  IndexKind = iota // web
	IntIndex                  // web[0] (count)
	KeyIndex                  // edge["a"] (forEach)
	AllIndex                  // web[*] (every instance; configuration only)
)

// Address is a parsed resource address.
type Address struct {
	Name  string // the resource's name as written in the configuration
	Kind  IndexKind
	Index int    // IntIndex
	Key   string // KeyIndex
}

// MaxKeyLen bounds a forEach key (it becomes part of cloud names).
const MaxKeyLen = 63

// ParseAddress parses name, name[N], name["key"], name[key] (a key that is
// not all digits may go unquoted) or name[*]. Names are letters, digits,
// '_' and '-' (not first); keys letters, digits, '_' and '-'.
//
// A Terraform address is a name too: segments joined by '.', a module's
// possibly with its instance (aws_subnet.public[0], data.aws_ami.x,
// module.net["a"].aws_subnet.private). Its keys, as OpenTofu's, may hold
// any character but '"', '\\' and control characters.
func ParseAddress(s string) (Address, bool) {
	n, ok := nameEnd(s)
	if !ok {
		return Address{}, false
	}
	a := Address{Name: s[:n]}
	if n == len(s) {
		return a, true
	}
	end, ok := indexEnd(s, n, &a)
	if !ok || end != len(s) {
		return Address{}, false
	}
	return a, true
}

// nameEnd is the end of the name at the start of s: before its final
// instance index, or len(s).
func nameEnd(s string) (int, bool) {
	i := 0
	for {
		start := i
		for i < len(s) && (isWord(s[i]) || (i > start && s[i] == '-')) {
			i++
		}
		if i == start {
			return 0, false
		}
		if i < len(s) && s[i] == '[' && strings.IndexByte(s[:i], '.') > 0 {
			// A module's instance inside a Terraform address.
			var a Address
			end, ok := indexEnd(s, i, &a)
			if ok && a.Kind != AllIndex && end < len(s) && s[end] == '.' {
				i = end
			}
		}
		if i < len(s) && s[i] == '.' {
			i++
			continue
		}
		return i, true
	}
}

// indexEnd parses the index starting at s[i] ('[') into a, returning the
// offset after its ']'. A Terraform address's (s[:i] holds a '.') keys
// are OpenTofu's.
func indexEnd(s string, i int, a *Address) (int, bool) {
	if i >= len(s) || s[i] != '[' {
		return 0, false
	}
	terraform := strings.IndexByte(s[:i], '.') > 0
	j := i + 1
	switch {
	case j < len(s) && s[j] == '*':
		if j+1 < len(s) && s[j+1] == ']' {
			a.Kind = AllIndex
			return j + 2, true
		}
		return 0, false
	case j < len(s) && s[j] == '"' && terraform:
		k := j + 1
		for k < len(s) && s[k] != '"' && s[k] != '\\' && s[k] >= 0x20 && s[k] != 0x7f {
			k++
		}
		if k+1 >= len(s) || s[k] != '"' || s[k+1] != ']' {
			return 0, false
		}
		a.Kind, a.Key = KeyIndex, s[j+1:k]
		return k + 2, true
	case j < len(s) && s[j] == '"':
		k := j + 1
		for k < len(s) && isKeyByte(s[k]) {
			k++
		}
		if k == j+1 || k-j-1 > MaxKeyLen || k+1 >= len(s) || s[k] != '"' || s[k+1] != ']' {
			return 0, false
		}
		a.Kind, a.Key = KeyIndex, s[j+1:k]
		return k + 2, true
	}
	k := j
	digits := true
	for k < len(s) && isKeyByte(s[k]) {
		if s[k] < '0' || s[k] > '9' {
			digits = false
		}
		k++
	}
	if k == j || k-j > MaxKeyLen || k >= len(s) || s[k] != ']' {
		return 0, false
	}
	if digits {
		n, err := strconv.Atoi(s[j:k])
		if err != nil || (k-j > 1 && s[j] == '0') {
			return 0, false
		}
		a.Kind, a.Index = IntIndex, n
	} else {
		a.Kind, a.Key = KeyIndex, s[j:k]
	}
	return k + 1, true
}

func isKeyByte(c byte) bool { return isWord(c) || c == '-' }

// ValidKey reports whether k may be a forEach key.
func ValidKey(k string) bool {
	if k == "" || len(k) > MaxKeyLen {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !isKeyByte(k[i]) {
			return false
		}
	}
	return true
}

// String is the canonical form: web, web[0], edge["a"], web[*].
func (a Address) String() string {
	switch a.Kind {
	case IntIndex:
		return a.Name + "[" + strconv.Itoa(a.Index) + "]"
	case KeyIndex:
		return a.Name + `["` + a.Key + `"]`
	case AllIndex:
		return a.Name + "[*]"
	}
	return a.Name
}

// InstanceName is the address of instance i of name (count).
func InstanceName(name string, i int) string { return name + "[" + strconv.Itoa(i) + "]" }

// KeyName is the address of the instance of name for key (forEach).
func KeyName(name, key string) string { return name + `["` + key + `"]` }

// BaseName is the resource name of an address: "web" for web[0].
func BaseName(addr string) string {
	if i := strings.IndexByte(addr, '['); i < 0 {
		return addr
	}
	if n, ok := nameEnd(addr); ok {
		return addr[:n]
	}
	return addr
}

// Segments are a Terraform address's segments outside its brackets,
// each with its index: module.net["a.b"].aws_subnet.x[0] is module,
// net["a.b"], aws_subnet, x[0]. A name without '.' is one segment.
func Segments(addr string) []string {
	var segs []string
	start, depth := 0, 0
	for i := 0; i < len(addr); i++ {
		switch c := addr[i]; {
		case c == '[':
			depth++
		case c == ']':
			depth--
		case c == '"' && depth > 0:
			for i++; i < len(addr) && addr[i] != '"'; i++ {
				if addr[i] == '\\' {
					i++
				}
			}
		case c == '.' && depth == 0:
			segs = append(segs, addr[start:i])
			start = i + 1
		}
	}
	return append(segs, addr[start:])
}

// SplitModule splits a Terraform address into its module instance's
// path ("" in the root module; module.net["a"].module.sub) and the
// resource's address within it (aws_subnet.x[0], data.aws_ami.y).
func SplitModule(addr string) (module, resource string) {
	segs := Segments(addr)
	i := 0
	for i+2 < len(segs) && segs[i] == "module" {
		i += 2
	}
	if i == 0 {
		return "", addr
	}
	return strings.Join(segs[:i], "."), strings.Join(segs[i:], ".")
}

// Within reports whether name is addr, one of its instances (addr[…]), or
// inside it (addr a module's address: addr.…).
func Within(name, addr string) bool {
	return name == addr || strings.HasPrefix(name, addr+"[") || strings.HasPrefix(name, addr+".")
}

// SafeName is the form of an address that every cloud accepts in names,
// tags and labels: web[0] → web-0, edge["eu-1"] → edge-eu-1; a plain
// name is itself. The configuration refuses two addresses with one safe
// name, so a safe name still says which resource an object belongs to.
func SafeName(addr string) string {
	if strings.IndexByte(addr, '.') > 0 {
		return terraformSafeName(addr)
	}
	i := strings.IndexByte(addr, '[')
	if i < 0 {
		return addr
	}
	a, ok := ParseAddress(addr)
	if !ok {
		return addr
	}
	switch a.Kind {
	case IntIndex:
		return a.Name + "-" + strconv.Itoa(a.Index)
	case KeyIndex:
		return a.Name + "-" + a.Key
	}
	return addr
}

// terraformSafeName is SafeName of a Terraform address: every character
// but letters, digits and '-' becomes '-', runs of them one (a host name
// has no '_'): kyku_vpc.main → kyku-vpc-main, kyku_vm.web["a"] →
// kyku-vm-web-a.
func terraformSafeName(addr string) string {
	b := make([]byte, 0, len(addr))
	for i := 0; i < len(addr); i++ {
		c := addr[i]
		if isKeyByte(c) && c != '_' {
			b = append(b, c)
		} else if len(b) > 0 && b[len(b)-1] != '-' {
			b = append(b, '-')
		}
	}
	return strings.TrimRight(string(b), "-")
}

// CompareNames orders addresses for people: by resource name, then count
// indexes by number (web[2] before web[10]), then keys as text. Plain names
// compare as strings, so a list of names without instances keeps its
// usual order.
func CompareNames(a, b string) int {
	ia, ib := strings.IndexByte(a, '['), strings.IndexByte(b, '[')
	if ia < 0 && ib < 0 {
		return strings.Compare(a, b)
	}
	na, nb := BaseName(a), BaseName(b)
	if c := strings.Compare(na, nb); c != 0 {
		return c
	}
	switch {
	case len(na) == len(a):
		return -1
	case len(nb) == len(b):
		return 1
	}
	xa, oka := ParseAddress(a)
	xb, okb := ParseAddress(b)
	if oka && okb && xa.Kind == IntIndex && xb.Kind == IntIndex {
		switch {
		case xa.Index < xb.Index:
			return -1
		case xa.Index > xb.Index:
			return 1
		}
		return 0
	}
	if oka && okb && xa.Kind != xb.Kind {
		return int(xa.Kind) - int(xb.Kind)
	}
	return strings.Compare(a, b)
}

// QuoteName quotes a resource name for a message: "web", but an instance
// address or a Terraform address as it is written (web[0], edge["a"],
// aws_subnet.public), without escaped quotes.
func QuoteName(name string) string {
	if strings.IndexByte(name, '[') > 0 || strings.IndexByte(name, '.') > 0 {
		if _, ok := ParseAddress(name); ok {
			return name
		}
	}
	return strconv.Quote(name)
}
