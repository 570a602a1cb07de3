package tfstate

import "bytes"

// serialField is how Encode's Compact form writes the serial: first after
// the terraform_version, a JSON string in which a quote is escaped, so
// that its first unescaped occurrence is the field itself.
var serialField = []byte(`,"serial":`)

// SameButSerial reports whether a and b, two states in Encode's Compact
// form, are the same state but for their serials: what a write that
// changes nothing else is, and OpenTofu does not make. It compares the
// bytes once, without encoding either state again with the other's
// serial.
func SameButSerial(a, b []byte) bool {
	ha, ta, ok1 := cutSerial(a)
	hb, tb, ok2 := cutSerial(b)
	return ok1 && ok2 && bytes.Equal(ha, hb) && bytes.Equal(ta, tb)
}

// cutSerial splits a Compact state around its serial's digits.
func cutSerial(s []byte) (head, tail []byte, ok bool) {
	i := bytes.Index(s, serialField)
	if i < 0 {
		return nil, nil, false
	}
	head, rest := s[:i+len(serialField)], s[i+len(serialField):]
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	if j == 0 {
		return nil, nil, false
	}
	return head, rest[j:], true
}
