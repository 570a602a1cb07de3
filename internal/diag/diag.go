// Package diag owns diagnostics: errors about user input that carry the
// position (file:line:col) they refer to. It is the only error type shown to
// users for bad input. Values are immutable and safe to share.
package diag

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a position in a source file. Line and Col are 1-based; zero means unknown.
type Pos struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

func (p Pos) String() string {
	switch {
	case p.File == "":
		return ""
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// InTerraformFile reports whether p is in a file of a Terraform
// configuration (.tf, .tofu and their .json), whose diagnostics are
// OpenTofu's, with their source line.
func (p Pos) InTerraformFile() bool {
	for _, ext := range []string{".tf", ".tofu", ".tf.json", ".tofu.json"} {
		if strings.HasSuffix(p.File, ext) {
			return true
		}
	}
	return false
}

// Diagnostic is one problem with the user's input. Source, when set, is
// the source line it is about with a mark under the part meant (HCL
// configurations'), shown on the lines after the message.
type Diagnostic struct {
	Pos     Pos
	Message string
	Source  string
}

func (d Diagnostic) String() string {
	msg := d.Message
	if d.Source != "" {
		msg += "\n" + d.Source
	}
	if s := d.Pos.String(); s != "" {
		return s + ": " + msg
	}
	return msg
}

// Diagnostics is a list of problems, all collected before returning. It
// implements error; a nil or empty list is no error (use Err).
type Diagnostics []Diagnostic

// Add appends a diagnostic built with fmt.Sprintf.
func (ds *Diagnostics) Add(pos Pos, format string, args ...any) {
	*ds = append(*ds, Diagnostic{Pos: pos, Message: fmt.Sprintf(format, args...)})
}

// Sort orders diagnostics by file, line, column, then message, so that
// output never depends on map iteration or scheduling.
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i].Pos, ds[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return ds[i].Message < ds[j].Message
	})
}

func (ds Diagnostics) Error() string {
	lines := make([]string, len(ds))
	for i, d := range ds {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// Err returns ds as an error, or nil when there is none.
func (ds Diagnostics) Err() error {
	if len(ds) == 0 {
		return nil
	}
	return ds
}
