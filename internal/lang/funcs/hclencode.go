package funcs

import (
	"fmt"
	"strings"

	"github.com/apparentlymart/go-textseg/v15/textseg"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/lang/hclstring"
)

// The built-in provider's encode_tfvars and encode_expr write values as
// OpenTofu writes them (with hclwrite): each value as the tokens of its
// literal, formatted as `tofu fmt` formats: an indent of two spaces a
// bracket opened on a line and not closed on it, one space between
// tokens but around brackets, commas and quotes, and the equals signs of
// neighbouring one-line attributes aligned. hclwrite itself is not
// linked: it brings go-cmp, whose start-up every command would pay.

// tokKind is what an encoded token is, as far as formatting cares.
type tokKind int

const (
	tokWord    tokKind = iota // an identifier, keyword or number
	tokOQuote                 // the quote opening a string
	tokQuoted                 // a string's escaped text
	tokCQuote                 // the quote closing it
	tokOBrack                 // [
	tokCBrack                 // ]
	tokOBrace                 // {
	tokCBrace                 // }
	tokComma                  // ,
	tokEqual                  // =
	tokNewline                // end of line
)

type hclTok struct {
	kind   tokKind
	text   string
	spaces int // before it, once formatted
}

// appendValueTokens appends the tokens of v's literal (known wholly).
func appendValueTokens(toks []*hclTok, v cty.Value) []*hclTok {
	add := func(k tokKind, text string) { toks = append(toks, &hclTok{kind: k, text: text}) }
	switch ty := v.Type(); {
	case v.IsNull():
		add(tokWord, "null")
	case ty == cty.Bool:
		add(tokWord, fmt.Sprint(v.True()))
	case ty == cty.Number:
		add(tokWord, v.AsBigFloat().Text('f', -1))
	case ty == cty.String:
		add(tokOQuote, `"`)
		if s := hclstring.Escape(v.AsString()); s != "" {
			add(tokQuoted, s)
		}
		add(tokCQuote, `"`)
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		add(tokOBrack, "[")
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			if i > 0 {
				add(tokComma, ",")
			}
			_, e := it.Element()
			toks = appendValueTokens(toks, e)
		}
		add(tokCBrack, "]")
	default: // a map or an object
		add(tokOBrace, "{")
		if v.LengthInt() > 0 {
			add(tokNewline, "\n")
		}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if hclsyntax.ValidIdentifier(k.AsString()) {
				add(tokWord, k.AsString())
			} else {
				toks = appendValueTokens(toks, k)
			}
			add(tokEqual, "=")
			toks = appendValueTokens(toks, e)
			add(tokNewline, "\n")
		}
		add(tokCBrace, "}")
	}
	return toks
}

// appendAttributeTokens appends name = v and a newline, as a variables
// file has it.
func appendAttributeTokens(toks []*hclTok, name string, v cty.Value) []*hclTok {
	toks = append(toks, &hclTok{kind: tokWord, text: name}, &hclTok{kind: tokEqual, text: "="})
	toks = appendValueTokens(toks, v)
	return append(toks, &hclTok{kind: tokNewline, text: "\n"})
}

// hclLine is one line of tokens: lead, and assign, from a one-line
// attribute's equals sign on (its value whole on the line).
type hclLine struct{ lead, assign []*hclTok }

// formatHCL is toks as text, formatted (see the top of this file).
func formatHCL(toks []*hclTok) string {
	var lines []hclLine
	start := 0
	for i, t := range toks {
		if t.kind == tokNewline {
			lines = append(lines, hclLine{lead: toks[start : i+1]})
			start = i + 1
		}
	}
	if start < len(toks) {
		lines = append(lines, hclLine{lead: toks[start:]})
	}
	for i := range lines {
		splitAssign(&lines[i])
	}
	indentLines(lines)
	for _, l := range lines {
		spaceCell(l.lead)
		if len(l.assign) > 0 {
			spaceCell(l.assign)
			l.assign[0].spaces = 1
		}
	}
	alignAssigns(lines)
	var b strings.Builder
	for _, t := range toks {
		if t.kind != tokNewline {
			b.WriteString(strings.Repeat(" ", t.spaces))
		}
		b.WriteString(t.text)
	}
	return b.String()
}

// bracketChange is what t opens (1) or closes (-1).
func bracketChange(t *hclTok) int {
	switch t.kind {
	case tokOBrack, tokOBrace:
		return 1
	case tokCBrack, tokCBrace:
		return -1
	}
	return 0
}

// splitAssign moves the equals sign of a line's attribute, and what
// follows, into assign, when the value closes on the line.
func splitAssign(l *hclLine) {
	for i, t := range l.lead {
		if i == 0 || t.kind != tokEqual {
			continue
		}
		net := 0
		for _, u := range l.lead[i:] {
			net += bracketChange(u)
		}
		if net == 0 {
			l.lead, l.assign = l.lead[:i], l.lead[i:]
		}
		return
	}
}

// indentLines indents each line by two spaces a bracket level: a line
// that opens more than it closes indents the lines after it once, however
// many it opened; the lines that close them come back out.
func indentLines(lines []hclLine) {
	var levels []int // the brackets each indent stands for
	for _, l := range lines {
		if len(l.lead) == 0 || l.lead[0].kind == tokNewline {
			if len(l.lead) > 0 {
				l.lead[0].spaces = 0
			}
			continue
		}
		net := 0
		for _, t := range l.lead {
			net += bracketChange(t)
		}
		for _, t := range l.assign {
			net += bracketChange(t)
		}
		switch {
		case net > 0:
			l.lead[0].spaces = 2 * len(levels)
			levels = append(levels, net)
		case net < 0:
			for closed := -net; closed > 0 && len(levels) > 0; {
				top := &levels[len(levels)-1]
				if closed >= *top {
					closed -= *top
					levels = levels[:len(levels)-1]
				} else {
					*top -= closed
					closed = 0
				}
			}
			l.lead[0].spaces = 2 * len(levels)
		default:
			l.lead[0].spaces = 2 * len(levels)
		}
	}
}

// spaceCell sets the spaces between the tokens of one cell.
func spaceCell(cell []*hclTok) {
	for i := 0; i+1 < len(cell); i++ {
		t, next := cell[i], cell[i+1]
		next.spaces = 0
		if spaceBetween(t, next) {
			next.spaces = 1
		}
	}
}

// spaceBetween reports whether a space goes between t and next.
func spaceBetween(t, next *hclTok) bool {
	switch {
	case next.kind == tokNewline, next.kind == tokComma:
		return false
	case t.kind == tokComma:
		return true
	case t.kind == tokOQuote || t.kind == tokQuoted || next.kind == tokQuoted || next.kind == tokCQuote:
		return false
	case next.kind == tokOBrack && (t.kind == tokWord || bracketChange(t) < 0):
		return false
	case t.kind == tokOBrace || next.kind == tokCBrace:
		return !(t.kind == tokOBrace && next.kind == tokCBrace)
	case bracketChange(t) > 0, bracketChange(next) < 0:
		return false
	}
	return true
}

// alignAssigns lines up the equals signs of neighbouring lines that hold
// a one-line attribute each.
func alignAssigns(lines []hclLine) {
	start, widest := -1, 0
	closeChain := func(end int) {
		for _, l := range lines[start:end] {
			l.assign[0].spaces = widest - columns(l.lead) + 1
		}
		start, widest = -1, 0
	}
	for i, l := range lines {
		if l.assign == nil {
			if start >= 0 {
				closeChain(i)
			}
			continue
		}
		if start < 0 {
			start = i
		}
		widest = max(widest, columns(l.lead))
	}
	if start >= 0 {
		closeChain(len(lines))
	}
}

// columns is how wide a cell is written: its spaces and its characters
// (grapheme clusters).
func columns(cell []*hclTok) int {
	n := 0
	for _, t := range cell {
		c, _ := textseg.TokenCount([]byte(t.text), textseg.ScanGraphemeClusters)
		n += t.spaces + c
	}
	return n
}
