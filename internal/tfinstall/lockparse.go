package tfinstall

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/diag"
)

// ParseLock reads a lock file: the subset of HCL that Terraform's lock
// files are written in (provider blocks of version, constraints and
// hashes; comments with #, // and /* */). Anything else is an error; every
// error is reported, each with its file:line:col.
func ParseLock(file string, data []byte) (*Lock, diag.Diagnostics) {
	p := &lockParser{lx: lexer{file: file, src: string(data), line: 1, col: 1}}
	p.next()
	l := &Lock{Providers: map[Source]*Locked{}}
	for p.tok.kind != tokEOF {
		if p.tok.kind == tokNewline {
			p.next()
			continue
		}
		p.block(l)
	}
	p.ds = append(p.lx.ds, p.ds...)
	p.ds.Sort()
	return l, p.ds
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokNewline
	tokIdent
	tokString
	tokPunct // { } [ ] = ,
	tokBad
)

type token struct {
	kind tokKind
	text string // the identifier, the string's value, the punctuation
	pos  diag.Pos
}

type lexer struct {
	file      string
	src       string
	i         int
	line, col int
	ds        diag.Diagnostics
}

func (lx *lexer) pos() diag.Pos { return diag.Pos{File: lx.file, Line: lx.line, Col: lx.col} }

func (lx *lexer) advance(n int) {
	for ; n > 0 && lx.i < len(lx.src); n-- {
		if lx.src[lx.i] == '\n' {
			lx.line, lx.col = lx.line+1, 1
		} else {
			lx.col++
		}
		lx.i++
	}
}

func (lx *lexer) token() token {
	for lx.i < len(lx.src) {
		c := lx.src[lx.i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			lx.advance(1)
		case c == '#' || strings.HasPrefix(lx.src[lx.i:], "//"):
			for lx.i < len(lx.src) && lx.src[lx.i] != '\n' {
				lx.advance(1)
			}
		case strings.HasPrefix(lx.src[lx.i:], "/*"):
			start := lx.pos()
			end := strings.Index(lx.src[lx.i+2:], "*/")
			if end < 0 {
				lx.ds.Add(start, "unterminated comment")
				lx.advance(len(lx.src))
				break
			}
			lx.advance(end + 4)
		default:
			return lx.word()
		}
	}
	return token{kind: tokEOF, pos: lx.pos()}
}

func (lx *lexer) word() token {
	pos := lx.pos()
	c := lx.src[lx.i]
	switch {
	case c == '\n':
		lx.advance(1)
		return token{kind: tokNewline, pos: pos}
	case strings.IndexByte("{}[]=,", c) >= 0:
		lx.advance(1)
		return token{kind: tokPunct, text: string(c), pos: pos}
	case c == '"':
		return lx.str(pos)
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_':
		j := lx.i
		for j < len(lx.src) && (isIdent(lx.src[j])) {
			j++
		}
		text := lx.src[lx.i:j]
		lx.advance(j - lx.i)
		return token{kind: tokIdent, text: text, pos: pos}
	}
	lx.advance(1)
	return token{kind: tokBad, text: string(c), pos: pos}
}

func isIdent(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// str reads a quoted string with HCL's simple escapes; template
// sequences (${, %{) have no place in a lock file.
func (lx *lexer) str(pos diag.Pos) token {
	var b strings.Builder
	lx.advance(1)
	for lx.i < len(lx.src) {
		c := lx.src[lx.i]
		switch {
		case c == '"':
			lx.advance(1)
			return token{kind: tokString, text: b.String(), pos: pos}
		case c == '\n':
			lx.ds.Add(pos, "unterminated string")
			return token{kind: tokBad, pos: pos}
		case c == '\\' && lx.i+1 < len(lx.src):
			switch e := lx.src[lx.i+1]; e {
			case '"', '\\':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				lx.ds.Add(lx.pos(), "unsupported escape \\%c", e)
			}
			lx.advance(2)
		case (c == '$' || c == '%') && strings.HasPrefix(lx.src[lx.i+1:], "{"):
			lx.ds.Add(lx.pos(), "templates are not allowed in a lock file")
			lx.advance(2)
		default:
			b.WriteByte(c)
			lx.advance(1)
		}
	}
	lx.ds.Add(pos, "unterminated string")
	return token{kind: tokBad, pos: pos}
}

type lockParser struct {
	lx  lexer
	tok token
	ds  diag.Diagnostics
}

func (p *lockParser) next() { p.tok = p.lx.token() }

func (p *lockParser) errorf(pos diag.Pos, format string, args ...any) {
	p.ds.Add(pos, format, args...)
}

// skipLine skips to the next line, past a bad statement.
func (p *lockParser) skipLine() {
	for p.tok.kind != tokEOF && p.tok.kind != tokNewline {
		p.next()
	}
}

func (p *lockParser) punct(s string) bool {
	if p.tok.kind == tokPunct && p.tok.text == s {
		p.next()
		return true
	}
	return false
}

// block reads `provider "ADDRESS" { … }`.
func (p *lockParser) block(l *Lock) {
	start := p.tok
	if start.kind != tokIdent || start.text != "provider" {
		p.errorf(start.pos, "unexpected %s: a lock file holds only provider blocks", describe(start))
		p.skipBlock()
		return
	}
	p.next()
	if p.tok.kind != tokString {
		p.errorf(p.tok.pos, "provider block: the provider's address must follow, in quotes")
		p.skipBlock()
		return
	}
	addrTok := p.tok
	src, err := ParseSource(addrTok.text)
	if err == nil && strings.Count(addrTok.text, "/") != 2 {
		err = fmt.Errorf("the address %q must name its host", addrTok.text)
	}
	if err != nil {
		p.errorf(addrTok.pos, "%v", err)
	}
	p.next()
	if !p.punct("{") {
		p.errorf(p.tok.pos, "provider block: { expected")
		p.skipBlock()
		return
	}
	entry := &Locked{}
	seen := map[string]bool{}
	for {
		switch {
		case p.tok.kind == tokNewline:
			p.next()
			continue
		case p.punct("}"):
		case p.tok.kind == tokEOF:
			p.errorf(start.pos, "provider block not closed")
		default:
			p.attribute(entry, seen)
			continue
		}
		break
	}
	if !seen["version"] {
		p.errorf(start.pos, "provider %s: version missing", addrTok.text)
	}
	if err != nil {
		return
	}
	if _, dup := l.Providers[src]; dup {
		p.errorf(addrTok.pos, "provider %s is locked twice", src)
		return
	}
	l.Providers[src] = entry
}

// skipBlock skips past the end of the current line or, when a block opens
// on it, past its end.
func (p *lockParser) skipBlock() {
	depth := 0
	for p.tok.kind != tokEOF {
		switch {
		case p.tok.kind == tokPunct && p.tok.text == "{":
			depth++
		case p.tok.kind == tokPunct && p.tok.text == "}":
			depth--
			if depth <= 0 {
				p.next()
				return
			}
		case p.tok.kind == tokNewline && depth == 0:
			p.next()
			return
		}
		p.next()
	}
}

func (p *lockParser) attribute(entry *Locked, seen map[string]bool) {
	name := p.tok
	if name.kind != tokIdent {
		p.errorf(name.pos, "unexpected %s: an attribute (version, constraints, hashes) expected", describe(name))
		p.skipLine()
		return
	}
	p.next()
	if !p.punct("=") {
		p.errorf(p.tok.pos, "%s: = expected", name.text)
		p.skipLine()
		return
	}
	if seen[name.text] {
		p.errorf(name.pos, "%s is set twice", name.text)
	}
	seen[name.text] = true
	switch name.text {
	case "version", "constraints":
		if p.tok.kind != tokString {
			p.errorf(p.tok.pos, "%s: a quoted string expected", name.text)
			p.skipLine()
			return
		}
		if name.text == "version" {
			if _, err := parseVersion(p.tok.text); err != nil {
				p.errorf(p.tok.pos, "version: %v", err)
			}
			entry.Version = p.tok.text
		} else {
			if _, err := ParseConstraints(p.tok.text); err != nil {
				p.errorf(p.tok.pos, "constraints: %v", err)
			}
			entry.Constraints = p.tok.text
		}
		p.next()
	case "hashes":
		p.hashes(entry)
	default:
		p.errorf(name.pos, "unsupported attribute %q in a provider block (version, constraints, hashes)", name.text)
		p.skipValue()
		return
	}
	if p.tok.kind != tokNewline && p.tok.kind != tokEOF && !(p.tok.kind == tokPunct && p.tok.text == "}") {
		p.errorf(p.tok.pos, "unexpected %s after %s", describe(p.tok), name.text)
		p.skipLine()
	}
}

func (p *lockParser) hashes(entry *Locked) {
	if !p.punct("[") {
		p.errorf(p.tok.pos, "hashes: a list [ … ] expected")
		p.skipLine()
		return
	}
	for {
		for p.tok.kind == tokNewline {
			p.next()
		}
		if p.punct("]") {
			return
		}
		if p.tok.kind != tokString {
			p.errorf(p.tok.pos, "hashes: unexpected %s", describe(p.tok))
			p.skipValue()
			return
		}
		h := Hash(p.tok.text)
		if !h.wellFormed() {
			p.errorf(p.tok.pos, "hashes: %q is not an h1: or zh: hash", p.tok.text)
		} else {
			entry.addHashes(h)
		}
		p.next()
		for p.tok.kind == tokNewline {
			p.next()
		}
		if !p.punct(",") {
			if p.punct("]") {
				return
			}
			p.errorf(p.tok.pos, "hashes: , or ] expected")
			p.skipValue()
			return
		}
	}
}

// skipValue skips a value, a list included.
func (p *lockParser) skipValue() {
	depth := 0
	for p.tok.kind != tokEOF {
		switch {
		case p.tok.kind == tokPunct && p.tok.text == "[":
			depth++
		case p.tok.kind == tokPunct && p.tok.text == "]":
			depth--
			if depth <= 0 {
				p.next()
				return
			}
		case p.tok.kind == tokPunct && p.tok.text == "}" && depth == 0:
			return
		case p.tok.kind == tokNewline && depth == 0:
			return
		}
		p.next()
	}
}

func describe(t token) string {
	switch t.kind {
	case tokEOF:
		return "end of file"
	case tokNewline:
		return "end of line"
	case tokString:
		return strconv.Quote(t.text)
	}
	return "`" + t.text + "`"
}
