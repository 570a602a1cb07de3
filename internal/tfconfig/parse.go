package tfconfig

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	hcljson "github.com/hashicorp/hcl/v2/json"
	"github.com/kyku/action/internal/fanout"
)

// A module's files are read and parsed together, each on a core of its
// own, and a large native-syntax file in pieces cut between its top-level
// blocks (parsePieces), lexed on every core. hcl's lexer keeps every
// token of a file in one slice: for the 5 MB of 50,000 resource blocks
// its tokens were a third of all a plan allocated, and the slice, grown
// by copying, the plan's largest object; in pieces the largest is a
// piece's (the tokens cost as much CPU as before, over more cores), and
// small pieces copy less while their slices grow (pieceSize).

// parsed is one file read and parsed: file nil when it could not be
// read (diags say why).
type parsed struct {
	file  *hcl.File
	diags hcl.Diagnostics
}

// parseFiles reads and parses names, native or JSON syntax by their
// names, at most one parse per core at a time; known holds the files
// parsed already (a module loaded twice), returned again without
// diagnostics as hclparse.Parser does.
func parseFiles(names []string, known map[string]*hcl.File) []parsed {
	out := make([]parsed, len(names))
	cores := make(chan struct{}, runtime.GOMAXPROCS(0))
	// At most one file read at a time per core too (a module of many files
	// holds that many open files and contents at most); a parser's panic
	// reaches the caller (fanout.Each).
	fanout.Each(len(names), runtime.GOMAXPROCS(0), func(i int) {
		if f := known[names[i]]; f != nil {
			out[i] = parsed{file: f}
			return
		}
		out[i] = parseFile(names[i], cores)
	})
	return out
}

// parseFile reads and parses one file, each parse holding one of cores.
func parseFile(name string, cores chan struct{}) parsed {
	data, err := os.ReadFile(name)
	if err != nil {
		return parsed{diags: hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Failed to read file",
			Detail:   fmt.Sprintf("The configuration file %q could not be read.", name),
		}}}
	}
	if strings.HasSuffix(name, ".json") {
		cores <- struct{}{}
		defer func() { <-cores }()
		f, diags := hcljson.Parse(data, name)
		return parsed{file: f, diags: diags}
	}
	if f := parsePieces(data, name, pieceSize, cores); f != nil {
		return parsed{file: f}
	}
	cores <- struct{}{}
	defer func() { <-cores }()
	f, diags := hclsyntax.ParseConfig(data, name, hcl.Pos{Line: 1, Column: 1, Byte: 0})
	return parsed{file: f, diags: diags}
}

// pieceSize is about how many bytes of a native-syntax file one piece
// holds: smaller files are parsed whole. The lexer grows its token slice
// by copying, doubling it while it is short and by about a quarter once
// it is long, so a long slice costs about five times its final size in
// copies and a short one about twice: pieces of 2 KB (a few hundred
// tokens) took what parsing and expanding the 50,000 resource blocks of
// .ci/bench-reads allocates from 1,585 MB to 1,121 MB (256 KB pieces
// before; 512 B, 8 KB and 32 KB pieces allocated more).
const pieceSize = 2 << 10

// parsePieces parses data in pieces of about size bytes cut after a line
// that is a lone "}" (where a top-level block ends), each piece at its
// own position in the file, and joins their bodies into the file's. It
// returns nil when data has fewer than two pieces, or when any piece
// says anything at all (an error, a warning) or two pieces set the same
// top-level argument: the file is then parsed whole, so that what it
// reports is what the whole file's parse reports. A cut that is not
// between top-level blocks (in a heredoc, a comment, a block) leaves the
// piece before it unclosed, which its parse reports; so when every
// piece parses cleanly each started where the whole file's lexer is at
// the top level, and the joined body is the one the whole parse makes.
func parsePieces(data []byte, name string, size int, cores chan struct{}) *hcl.File {
	cuts := cutPoints(data, size)
	if len(cuts) < 2 {
		return nil
	}
	bodies := make([]*hclsyntax.Body, len(cuts))
	clean := make([]bool, len(cuts))
	fanout.Each(len(cuts), runtime.GOMAXPROCS(0), func(i int) {
		at, end := cuts[i], len(data)
		if i+1 < len(cuts) {
			end = cuts[i+1].Byte
		}
		cores <- struct{}{}
		defer func() { <-cores }()
		f, diags := hclsyntax.ParseConfig(data[at.Byte:end], name, at)
		if body, ok := f.Body.(*hclsyntax.Body); ok && len(diags) == 0 {
			bodies[i], clean[i] = body, true
		}
	})
	body := &hclsyntax.Body{Attributes: hclsyntax.Attributes{}, Blocks: hclsyntax.Blocks{}}
	for i, b := range bodies {
		if !clean[i] {
			return nil
		}
		for name, a := range b.Attributes {
			if _, twice := body.Attributes[name]; twice {
				return nil
			}
			body.Attributes[name] = a
		}
		body.Blocks = append(body.Blocks, b.Blocks...)
	}
	body.SrcRange = hcl.RangeBetween(bodies[0].SrcRange, bodies[len(bodies)-1].SrcRange)
	body.EndRange = bodies[len(bodies)-1].EndRange
	// Nav (hcled's context strings) is left out: nothing here reads it.
	return &hcl.File{Body: body, Bytes: data}
}

// cutPoints are where the pieces of data start: the first at the start,
// each next at the first line after a line that is a lone "}" at least
// size bytes after the one before. One pass over data: each search for
// such a line starts where the one before stopped.
func cutPoints(data []byte, size int) []hcl.Pos {
	cuts := []hcl.Pos{{Line: 1, Column: 1, Byte: 0}}
	line, counted := 1, 0 // line is the line at byte counted
	for from := size; from < len(data); {
		at := afterLoneBrace(data, from)
		if at < 0 || at >= len(data) {
			return cuts
		}
		line += bytes.Count(data[counted:at], []byte("\n"))
		counted = at
		cuts = append(cuts, hcl.Pos{Line: line, Column: 1, Byte: at})
		from = at + size
	}
	return cuts
}

// afterLoneBrace is where the line after the first lone "}" line ("\n}\n"
// or "\n}\r\n") at or after from starts, or -1 when there is none.
func afterLoneBrace(data []byte, from int) int {
	for {
		i := bytes.Index(data[from:], []byte("\n}"))
		if i < 0 {
			return -1
		}
		at := from + i + len("\n}")
		switch {
		case bytes.HasPrefix(data[at:], []byte("\n")):
			return at + len("\n")
		case bytes.HasPrefix(data[at:], []byte("\r\n")):
			return at + len("\r\n")
		}
		from = at
	}
}
