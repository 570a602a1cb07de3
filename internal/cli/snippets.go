package cli

import (
	"os"
	"strings"
	"unicode"

	"github.com/hashicorp/hcl/v2"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/lang/hcldiag"
)

// withSources gives each diagnostic at a line of a Terraform file
// that has no source line yet (what the engine and the providers say of
// a resource: its argument's position only) the line, marked from its
// column to the end of the word there, as the configuration's own errors
// have it. Files are read once; one that cannot be read leaves its
// diagnostics as they were. Variables files and a kyku.yaml are left
// alone: a line of theirs may hold a secret's value.
func withSources(ds diag.Diagnostics) {
	files := map[string][]byte{}
	for i := range ds {
		d := &ds[i]
		if d.Source != "" || d.Pos.Line < 1 || !d.Pos.InTerraformFile() {
			continue
		}
		src, seen := files[d.Pos.File]
		if !seen {
			src, _ = os.ReadFile(d.Pos.File)
			files[d.Pos.File] = src
		}
		if src == nil {
			continue
		}
		d.Source = hcldiag.Snippet(src, wordAt(src, d.Pos))
	}
}

// wordAt is the range of the word that starts at p (an argument's name,
// a block's type), at least one column.
func wordAt(src []byte, p diag.Pos) hcl.Range {
	start := hcl.Pos{Line: p.Line, Column: max(p.Col, 1)}
	end := hcl.Pos{Line: p.Line, Column: start.Column + 1}
	lines := strings.Split(string(src), "\n")
	if p.Line <= len(lines) {
		line := []rune(lines[p.Line-1])
		c := start.Column - 1
		for c < len(line) && !unicode.IsSpace(line[c]) && !strings.ContainsRune("={}[]:,", line[c]) {
			c++
		}
		end.Column = max(c+1, start.Column+1)
	}
	return hcl.Range{Filename: p.File, Start: start, End: end}
}
