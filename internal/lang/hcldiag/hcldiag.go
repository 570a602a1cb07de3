// Package hcldiag turns HCL's diagnostics into Kyku's (package diag), for
// both configuration languages: a .tf file's and a kyku.yaml string's
// expressions. Pure functions, safe for concurrent use.
package hcldiag

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/kyku/action/internal/diag"
)

// Convert turns HCL's error diagnostics into Kyku's: at file:line:col,
// OpenTofu's summary and detail, and the source line with the part
// meant marked (source returns a file's text by name, nil when it is
// not known). Warnings are left out.
func Convert(hds hcl.Diagnostics, source func(file string) []byte) diag.Diagnostics {
	var out diag.Diagnostics
	seen := map[string]bool{}
	for _, d := range hds {
		if d.Severity != hcl.DiagError {
			continue
		}
		kd := diag.Diagnostic{Message: Message(d)}
		if d.Subject != nil {
			kd.Pos = diag.Pos{File: d.Subject.Filename, Line: d.Subject.Start.Line, Col: d.Subject.Start.Column}
			if src := source(d.Subject.Filename); src != nil {
				kd.Source = Snippet(src, *d.Subject)
			}
		}
		if key := kd.String(); !seen[key] {
			seen[key] = true
			out = append(out, kd)
		}
	}
	out.Sort()
	return out
}

// Message is a diagnostic's summary and detail on one line each.
func Message(d *hcl.Diagnostic) string {
	if d.Detail == "" {
		return d.Summary
	}
	return d.Summary + ": " + d.Detail
}

// Snippet is the line of src where rng starts, numbered, with a mark
// under the part of it rng covers:
//
//	3 |   foo = 1
//	  |   ^^^
func Snippet(src []byte, rng hcl.Range) string {
	lines := bytes.Split(src, []byte("\n"))
	if rng.Start.Line < 1 || rng.Start.Line > len(lines) {
		return ""
	}
	line := strings.TrimRight(string(lines[rng.Start.Line-1]), "\r")
	num := fmt.Sprintf("%5d | ", rng.Start.Line)
	start := min(max(rng.Start.Column-1, 0), utf8.RuneCountInString(line))
	width := 1
	if rng.End.Line == rng.Start.Line && rng.End.Column > rng.Start.Column {
		width = rng.End.Column - rng.Start.Column
	} else if rng.End.Line > rng.Start.Line {
		width = max(utf8.RuneCountInString(line)-start, 1)
	}
	pad := strings.Repeat(" ", len(num)-2) + "| "
	lead := []rune(line)[:start]
	for i, r := range lead {
		if r != '\t' {
			lead[i] = ' '
		}
	}
	return num + line + "\n" + pad + string(lead) + strings.Repeat("^", width)
}
