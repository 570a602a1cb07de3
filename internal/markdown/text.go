package markdown

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// Text is s, already on one line, escaped for inline markdown: the ASCII
// punctuation markdown or HTML could act on is backslash-escaped (no
// emphasis, link, HTML tag, entity or table cell break), and an @ is
// followed by a zero-width space so that a name cannot mention anyone.
func Text(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf && strings.ContainsRune("\\`*_{}[]<>()#!|~&", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
		if r == '@' {
			b.WriteString("\u200b")
		}
	}
	return b.String()
}

// HTML is s, already on one line, escaped for raw HTML content (a
// <summary>), with a zero-width space after each @ so that it cannot
// mention anyone.
func HTML(s string) string { return htmlEscaper().Replace(s) }

var htmlEscaper = sync.OnceValue(func() *strings.Replacer {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "@", "@\u200b")
})
