package awstest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// node is a tiny XML tree: either text or children.
type node struct {
	name string
	text string
	kids []node
	leaf bool
}

func el(name string, kids ...node) node { return node{name: name, kids: kids} }
func tx(name, text string) node         { return node{name: name, text: text, leaf: true} }
func txi(name string, n int) node       { return tx(name, strconv.Itoa(n)) }
func txb(name string, b bool) node      { return tx(name, strconv.FormatBool(b)) }

// list wraps items as <name><member>…</member>…</name> (member is "item" on EC2).
func list(name, member string, items []node) node {
	out := node{name: name}
	for _, it := range items {
		it.name = member
		out.kids = append(out.kids, it)
	}
	return out
}

func (n node) write(b *strings.Builder) {
	b.WriteString("<" + n.name + ">")
	if n.leaf {
		escape(b, n.text)
	}
	for _, k := range n.kids {
		k.write(b)
	}
	b.WriteString("</" + n.name + ">")
}

func escape(b *strings.Builder, s string) {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")
	b.WriteString(r.Replace(s))
}

// tagNodes renders tags sorted by key as key/value (EC2) or Key/Value nodes.
func tagNodes(tags map[string]string, key, value string) []node {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]node, 0, len(keys))
	for _, k := range keys {
		out = append(out, el("", tx(key, k), tx(value, tags[k])))
	}
	return out
}

// form is a parsed query-protocol request body.
type form struct{ url.Values }

func (f form) get(k string) string { return f.Values.Get(k) }

// list returns prefix.1, prefix.2, … until the first gap.
func (f form) list(prefix string) []string {
	var out []string
	for i := 1; ; i++ {
		v, ok := f.Values[prefix+"."+strconv.Itoa(i)]
		if !ok {
			return out
		}
		out = append(out, v[0])
	}
}

// structs returns the index prefixes prefix.1, prefix.2, … that have any key.
func (f form) structs(prefix string) []string {
	var out []string
	for i := 1; ; i++ {
		p := prefix + "." + strconv.Itoa(i)
		found := false
		for k := range f.Values {
			if strings.HasPrefix(k, p+".") {
				found = true
				break
			}
		}
		if !found {
			return out
		}
		out = append(out, p)
	}
}

// filters parses EC2 Filter.N.Name / Filter.N.Value.M.
func (f form) filters() map[string][]string {
	out := map[string][]string{}
	for _, p := range f.structs("Filter") {
		out[f.get(p+".Name")] = f.list(p + ".Value")
	}
	return out
}

// ec2Tags parses TagSpecification.N.Tag.M (all specs merged) or Tag.M.
func (f form) ec2Tags(prefix string) map[string]string {
	tags := map[string]string{}
	for _, p := range f.structs(prefix) {
		tags[f.get(p+".Key")] = f.get(p + ".Value")
	}
	return tags
}

func (f form) tagSpecs() map[string]string {
	tags := map[string]string{}
	for _, s := range f.structs("TagSpecification") {
		for k, v := range f.ec2Tags(s + ".Tag") {
			tags[k] = v
		}
	}
	return tags
}

// apiError is an error the fake answers with.
type apiError struct {
	status int
	code   string
	msg    string
}

func (e *apiError) Error() string { return e.code + ": " + e.msg }

func errf(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, msg: fmt.Sprintf(format, args...)}
}

func notFound(code, id string) *apiError {
	return errf(400, code, "The %s '%s' does not exist", strings.TrimSuffix(code, ".NotFound"), id)
}

func writeEC2(w http.ResponseWriter, action string, kids []node) {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<` + action + `Response xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">`)
	tx("requestId", "req-1").write(&b)
	for _, k := range kids {
		k.write(&b)
	}
	b.WriteString(`</` + action + `Response>`)
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	_, _ = w.Write([]byte(b.String()))
}

func writeEC2Error(w http.ResponseWriter, e *apiError) {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<Response>")
	el("Errors", el("Error", tx("Code", e.code), tx("Message", e.msg))).write(&b)
	tx("RequestID", "req-1").write(&b)
	b.WriteString("</Response>")
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	w.WriteHeader(e.status)
	_, _ = w.Write([]byte(b.String()))
}

func writeQuery(w http.ResponseWriter, ns, action string, kids []node) {
	var b strings.Builder
	b.WriteString(`<` + action + `Response xmlns="` + ns + `">`)
	el(action+"Result", kids...).write(&b)
	el("ResponseMetadata", tx("RequestId", "req-1")).write(&b)
	b.WriteString(`</` + action + `Response>`)
	w.Header().Set("Content-Type", "text/xml")
	_, _ = w.Write([]byte(b.String()))
}

func writeQueryError(w http.ResponseWriter, ns string, e *apiError) {
	var b strings.Builder
	b.WriteString(`<ErrorResponse xmlns="` + ns + `">`)
	typ := "Sender"
	if e.status >= 500 {
		typ = "Receiver"
	}
	el("Error", tx("Type", typ), tx("Code", e.code), tx("Message", e.msg)).write(&b)
	tx("RequestId", "req-1").write(&b)
	b.WriteString("</ErrorResponse>")
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(e.status)
	_, _ = w.Write([]byte(b.String()))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
