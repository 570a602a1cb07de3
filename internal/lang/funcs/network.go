package funcs

import (
	"fmt"
	"math/big"
	"net"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/gocty"
)

// addNetwork adds the IP network functions. Like OpenTofu's, they read
// IPv4 octets with leading zeros as decimal ("010.1.0.0" is 10.1.0.0),
// which Go's net package no longer accepts.
func addNetwork(t map[string]function.Function) {
	t["cidrcontains"] = cidrContainsFunc()
	t["cidrhost"] = cidrHostFunc()
	t["cidrnetmask"] = cidrNetmaskFunc()
	t["cidrsubnet"] = cidrSubnetFunc()
	t["cidrsubnets"] = cidrSubnetsFunc()
}

// parseIP reads an IPv4 or IPv6 address; nil if it is neither.
func parseIP(s string) net.IP {
	if strings.Contains(s, ":") {
		return net.ParseIP(s)
	}
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return nil
	}
	var b [4]byte
	for i, p := range parts {
		if p == "" || strings.TrimLeft(p, "0123456789") != "" || len(p) > 7 {
			return nil
		}
		n, err := strconv.Atoi(p)
		if err != nil || n > 255 {
			return nil
		}
		b[i] = byte(n)
	}
	return net.IPv4(b[0], b[1], b[2], b[3])
}

// parseCIDR reads "address/prefix-length" as net.ParseCIDR does: the
// network's address is masked and four bytes long for IPv4.
func parseCIDR(s string) (*net.IPNet, error) {
	bad := &net.ParseError{Type: "CIDR address", Text: s}
	addr, length, ok := strings.Cut(s, "/")
	if !ok || strings.Contains(addr, ":") {
		_, n, err := net.ParseCIDR(s)
		return n, err
	}
	ip := parseIP(addr).To4()
	n, err := strconv.Atoi(length)
	if ip == nil || err != nil || length == "" || strings.TrimLeft(length, "0123456789") != "" || n > 32 {
		return nil, bad
	}
	mask := net.CIDRMask(n, 32)
	return &net.IPNet{IP: ip.Mask(mask), Mask: mask}, nil
}

func parseNetwork(s string) (*net.IPNet, error) {
	n, err := parseCIDR(s)
	if err != nil {
		return nil, fmt.Errorf("invalid CIDR expression: %w", err)
	}
	return n, nil
}

// ipInt is an address as a number, with its width in bits.
func ipInt(ip net.IP) (*big.Int, int) {
	if len(ip) == net.IPv4len {
		return new(big.Int).SetBytes(ip), 32
	}
	return new(big.Int).SetBytes(ip.To16()), 128
}

// intIP is the address of a number, bits wide.
func intIP(n *big.Int, bits int) net.IP {
	ip := make(net.IP, bits/8)
	return n.FillBytes(ip)
}

// hostMask has the host bits of a prefix length set.
func hostMask(prefix, bits int) *big.Int {
	m := new(big.Int).Lsh(big.NewInt(1), uint(bits-prefix))
	return m.Sub(m, big.NewInt(1))
}

func bigInt(v cty.Value) (*big.Int, error) {
	var n *big.Int
	err := gocty.FromCtyValue(v, &n)
	return n, err
}

// cidrHostFunc is the address of host number hostnum in a prefix;
// negative numbers count back from the last address.
func cidrHostFunc() function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{strParam("prefix"), {Name: "hostnum", Type: cty.Number}},
		Type:         function.StaticReturnType(cty.String),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			num, err := bigInt(args[1])
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			network, err := parseNetwork(args[0].AsString())
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			prefix, _ := network.Mask.Size()
			base, bits := ipInt(network.IP)
			last := hostMask(prefix, bits)
			if num.Sign() < 0 {
				num.Add(num, last).Add(num, big.NewInt(1)) // -1 is the last address
			}
			if num.Sign() < 0 || num.Cmp(last) > 0 {
				return cty.UnknownVal(cty.String), fmt.Errorf("prefix of %d does not accommodate a host numbered %s", prefix, num)
			}
			return cty.StringVal(intIP(base.Or(base, num), bits).String()), nil
		},
	})
}

// cidrNetmaskFunc is an IPv4 prefix's netmask in dotted form.
func cidrNetmaskFunc() function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{strParam("prefix")},
		Type:         function.StaticReturnType(cty.String),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			network, err := parseNetwork(args[0].AsString())
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			if network.IP.To4() == nil {
				return cty.UnknownVal(cty.String), fmt.Errorf("IPv6 addresses cannot have a netmask: %s", args[0].AsString())
			}
			return cty.StringVal(net.IP(network.Mask).String()), nil
		},
	})
}

// subnet is network number num of the prefix extended by newBits.
func subnet(network *net.IPNet, newBits int, num *big.Int) (*net.IPNet, error) {
	prefix, bits := network.Mask.Size()
	length := prefix + newBits
	if newBits < 0 || length > bits {
		return nil, fmt.Errorf("insufficient address space to extend prefix of %d by %d", prefix, newBits)
	}
	if num.Sign() < 0 || num.Cmp(hostMask(prefix, length)) > 0 {
		return nil, fmt.Errorf("prefix extension of %d does not accommodate a subnet numbered %s", newBits, num)
	}
	base, _ := ipInt(network.IP)
	ip := intIP(base.Or(base, new(big.Int).Lsh(num, uint(bits-length))), bits)
	return &net.IPNet{IP: ip, Mask: net.CIDRMask(length, bits)}, nil
}

// cidrSubnetFunc is one subnet of a prefix, by number.
func cidrSubnetFunc() function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{
			strParam("prefix"), {Name: "newbits", Type: cty.Number}, {Name: "netnum", Type: cty.Number},
		},
		Type:         function.StaticReturnType(cty.String),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			var newBits int
			if err := gocty.FromCtyValue(args[1], &newBits); err != nil {
				return cty.UnknownVal(cty.String), err
			}
			num, err := bigInt(args[2])
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			network, err := parseNetwork(args[0].AsString())
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			sub, err := subnet(network, newBits, num)
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			return cty.StringVal(sub.String()), nil
		},
	})
}

// cidrSubnetsFunc allocates consecutive subnets of the given sizes, each
// aligned to its own size, in order.
func cidrSubnetsFunc() function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{strParam("prefix")},
		VarParam:     &function.Parameter{Name: "newbits", Type: cty.Number},
		Type:         function.StaticReturnType(cty.List(cty.String)),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			network, err := parseCIDR(args[0].AsString())
			if err != nil {
				return cty.UnknownVal(cty.List(cty.String)), function.NewArgErrorf(0, "invalid CIDR expression: %s", err)
			}
			if len(args) == 1 {
				return cty.ListValEmpty(cty.String), nil
			}
			start, bits := network.Mask.Size()
			family := map[int]string{32: "IPv4", 128: "IPv6"}[bits]
			base, _ := ipInt(network.IP)
			var first int
			if err := gocty.FromCtyValue(args[1], &first); err != nil {
				return cty.UnknownVal(cty.List(cty.String)), function.NewArgError(1, err)
			}
			// Start just before the network, aligned to the first size.
			cur := new(big.Int).Sub(base, big.NewInt(1))
			cur.And(cur, hostMask(0, bits))
			curLen := first + start
			if curLen <= bits && curLen >= 0 {
				cur.AndNot(cur, hostMask(curLen, bits))
			}
			out := make([]cty.Value, 0, len(args)-1)
			for i, a := range args[1:] {
				var n int
				if err := gocty.FromCtyValue(a, &n); err != nil {
					return cty.UnknownVal(cty.List(cty.String)), function.NewArgError(i+1, err)
				}
				switch {
				case n < 1:
					return cty.UnknownVal(cty.List(cty.String)), function.NewArgErrorf(i+1, "must extend prefix by at least one bit")
				case n > 32:
					return cty.UnknownVal(cty.List(cty.String)), function.NewArgErrorf(i+1, "may not extend prefix by more than 32 bits")
				case start+n > bits:
					return cty.UnknownVal(cty.List(cty.String)), function.NewArgErrorf(i+1, "would extend prefix to %d bits, which is too long for an %s address", start+n, family)
				}
				length := start + n
				// The next block of this size after everything so far.
				next := new(big.Int).Or(cur, hostMask(max(curLen, 0), bits))
				next.Or(next, hostMask(length, bits))
				next.Add(next, big.NewInt(1))
				rollover := next.BitLen() > bits
				next.And(next, hostMask(0, bits))
				ip := intIP(next, bits)
				if rollover || !network.Contains(ip) {
					after := &net.IPNet{IP: intIP(cur, bits), Mask: net.CIDRMask(curLen, bits)}
					return cty.UnknownVal(cty.List(cty.String)), function.NewArgErrorf(i+1, "not enough remaining address space for a subnet with a prefix of %d bits after %s", length, after)
				}
				cur, curLen = next, length
				out = append(out, cty.StringVal((&net.IPNet{IP: ip, Mask: net.CIDRMask(length, bits)}).String()))
			}
			return cty.ListVal(out), nil
		},
	})
}

// cidrContainsFunc reports whether a prefix holds an address, or all of
// another prefix.
func cidrContainsFunc() function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{strParam("containing_prefix"), strParam("contained_ip_or_prefix")},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			prefix, addr := args[0].AsString(), args[1].AsString()
			outer, err := parseCIDR(prefix)
			if err != nil {
				return cty.UnknownVal(cty.Bool), err
			}
			first, last := parseIP(addr), net.IP(nil)
			if first == nil {
				inner, err := parseCIDR(addr)
				if err != nil {
					return cty.UnknownVal(cty.Bool), fmt.Errorf("invalid IP address or prefix: %s", addr)
				}
				ones, bits := inner.Mask.Size()
				n, _ := ipInt(inner.IP)
				first = inner.IP
				last = intIP(n.Or(n, hostMask(ones, bits)), bits)
			}
			if (first.To4() == nil) != (outer.IP.To4() == nil) {
				return cty.UnknownVal(cty.Bool), fmt.Errorf("address family mismatch: %s vs. %s", prefix, addr)
			}
			in := outer.Contains(first) && (last == nil || outer.Contains(last))
			return cty.BoolVal(in), nil
		},
	})
}
