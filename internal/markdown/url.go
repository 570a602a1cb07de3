package markdown

import (
	"net/url"
	"strings"
	"sync"
)

// URL is u when it is an absolute http(s) URL, escaped so that it cannot
// end a markdown link early; otherwise "" (a javascript: or relative URL
// is never linked).
func URL(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
		return ""
	}
	return urlEscaper().Replace(p.String())
}

// Link is a markdown link to u, or the bare label when u is not a safe
// URL. label is the caller's markdown: escape what it does not control.
func Link(label, u string) string {
	if s := URL(u); s != "" {
		return "[" + label + "](" + s + ")"
	}
	return label
}

var urlEscaper = sync.OnceValue(func() *strings.Replacer {
	return strings.NewReplacer("(", "%28", ")", "%29", " ", "%20", "<", "%3C", ">", "%3E")
})
