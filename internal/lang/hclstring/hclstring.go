// Package hclstring writes strings as HCL's quoted string literals are
// written: OpenTofu's instance keys in addresses (tfstate) and the
// built-in provider's encode functions (lang/funcs) both need it.
package hclstring

import (
	"fmt"
	"strings"
	"unicode"
)

// Quote is s as an HCL quoted string literal, quotes included.
func Quote(s string) string { return `"` + Escape(s) + `"` }

// Escape is s as the text inside an HCL quoted string: \n, \r, \t, \"
// and \\ escaped, the template introducers ${ and %{ doubled, and what
// is not printable written as \uNNNN or \UNNNNNNNN.
func Escape(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch r {
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '$', '%':
			b.WriteRune(r)
			if strings.HasPrefix(s[i+1:], "{") {
				b.WriteRune(r)
			}
		default:
			switch {
			case unicode.IsPrint(r):
				b.WriteRune(r)
			case r < 0x10000:
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		}
	}
	return b.String()
}
