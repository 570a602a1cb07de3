package tfcorpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
)

// DiagnosticsFile holds, for an entry OpenTofu refuses to plan
// (ExpectErrorFile), the errors it gave, normalised.
const (
	DiagnosticsFile = "tofu-diagnostics.json"
	ExpectErrorFile = "corpus.expect-error"
)

// Diagnostic is one error of a refused plan, where it points.
type Diagnostic struct {
	Summary  string `json:"summary"`
	Detail   string `json:"detail,omitempty"` // recorded for the reader; not compared
	Filename string `json:"filename,omitempty"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"` // recorded for the reader; not compared
}

// tofuDiagnosticLine is a line of `tofu plan -json` that may be a diagnostic.
type tofuDiagnosticLine struct {
	Type       string `json:"type"`
	Diagnostic struct {
		Severity string `json:"severity"`
		Summary  string `json:"summary"`
		Detail   string `json:"detail"`
		Range    *struct {
			Filename string `json:"filename"`
			Start    struct {
				Line   int `json:"line"`
				Column int `json:"column"`
			} `json:"start"`
		} `json:"range"`
	} `json:"diagnostic"`
}

// TofuDiagnostics is the golden of a refused plan: the errors among the
// lines `tofu plan -json` wrote, sorted by file, line and summary, as
// Normalize writes JSON. It fails when there is no error.
func TofuDiagnostics(lines []byte, workdir string) ([]byte, error) {
	var ds []Diagnostic
	sc := bufio.NewScanner(bytes.NewReader(lines))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var l tofuDiagnosticLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("read tofu plan -json: %w", err)
		}
		if l.Type != "diagnostic" || l.Diagnostic.Severity != "error" {
			continue
		}
		d := Diagnostic{Summary: l.Diagnostic.Summary, Detail: l.Diagnostic.Detail}
		if r := l.Diagnostic.Range; r != nil {
			d.Filename, d.Line, d.Column = r.Filename, r.Start.Line, r.Start.Column
		}
		ds = append(ds, d)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read tofu plan -json: %w", err)
	}
	if len(ds) == 0 {
		return nil, errors.New("tofu plan -json: no error; the entry expects one")
	}
	sortDiagnostics(ds)
	doc, err := json.Marshal(map[string]any{"diagnostics": ds})
	if err != nil {
		return nil, err
	}
	return Normalize(doc, workdir)
}

// ReadDiagnostics reads a golden TofuDiagnostics wrote.
func ReadDiagnostics(data []byte) ([]Diagnostic, error) {
	var doc struct {
		Diagnostics []Diagnostic `json:"diagnostics"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("read diagnostics: %w", err)
	}
	if len(doc.Diagnostics) == 0 {
		return nil, errors.New("read diagnostics: none")
	}
	return doc.Diagnostics, nil
}

// CompareDiagnostics lists the differences between OpenTofu's errors
// (want) and Kyku's (got): each must be at the same file and line with
// the same summary. Details and columns are not compared.
func CompareDiagnostics(want, got []Diagnostic) []string {
	key := func(d Diagnostic) string {
		return fmt.Sprintf("%s:%d: %s", d.Filename, d.Line, d.Summary)
	}
	got = slices.Clone(got)
	count := map[string]int{}
	for _, d := range got {
		count[key(d)]++
	}
	var diffs []string
	for _, d := range want {
		if count[key(d)] == 0 {
			diffs = append(diffs, "missing error: "+key(d))
			continue
		}
		count[key(d)]--
	}
	sortDiagnostics(got)
	for _, d := range got {
		if count[key(d)] > 0 {
			diffs = append(diffs, "extra error: "+key(d))
			count[key(d)]--
		}
	}
	return diffs
}

func sortDiagnostics(ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Summary < b.Summary
	})
}
