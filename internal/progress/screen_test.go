package progress

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// tokKind is one thing a terminal does with the output stream.
type tokKind int

const (
	tokText  tokKind = iota // a printable rune
	tokCR                   // \r
	tokLF                   // \n
	tokUp                   // \x1b[1A
	tokClear                // \x1b[2K
	tokSGR                  // \x1b[...m, colour; the screen ignores it
)

type token struct {
	kind tokKind
	r    rune
}

// tokenize splits terminal output into tokens and fails the test on any
// byte the terminal view must never emit.
func tokenize(t *testing.T, out []byte) []token {
	t.Helper()
	var toks []token
	for len(out) > 0 {
		switch out[0] {
		case '\r':
			toks, out = append(toks, token{kind: tokCR}), out[1:]
			continue
		case '\n':
			toks, out = append(toks, token{kind: tokLF}), out[1:]
			continue
		case '\x1b':
			end := 2
			for end < len(out) && (out[end] >= '0' && out[end] <= '9' || out[end] == ';') {
				end++
			}
			if len(out) < 2 || out[1] != '[' || end >= len(out) {
				t.Fatalf("bad escape sequence at %q", out[:min(len(out), 8)])
			}
			seq := string(out[:end+1])
			switch {
			case seq == cursorUp:
				toks = append(toks, token{kind: tokUp})
			case seq == clearLine:
				toks = append(toks, token{kind: tokClear})
			case out[end] == 'm':
				toks = append(toks, token{kind: tokSGR})
			default:
				t.Fatalf("unexpected escape sequence %q", seq)
			}
			out = out[end+1:]
			continue
		}
		r, n := utf8.DecodeRune(out)
		if r == utf8.RuneError || r < ' ' || r == 0x7f {
			t.Fatalf("unexpected byte %q in output", out[:n])
		}
		toks, out = append(toks, token{kind: tokText, r: r}), out[n:]
	}
	return toks
}

// screen is a tiny terminal: enough rows for the test, no wrapping, no
// scrolling region.
type screen struct {
	rows     [][]rune
	row, col int
}

func (s *screen) apply(tok token) {
	for len(s.rows) <= s.row {
		s.rows = append(s.rows, nil)
	}
	switch tok.kind {
	case tokText:
		line := s.rows[s.row]
		for len(line) <= s.col {
			line = append(line, ' ')
		}
		line[s.col] = tok.r
		s.rows[s.row] = line
		s.col++
	case tokCR:
		s.col = 0
	case tokLF:
		s.row++
		for len(s.rows) <= s.row {
			s.rows = append(s.rows, nil)
		}
	case tokUp:
		s.row = max(s.row-1, 0)
	case tokClear:
		s.rows[s.row] = nil
	}
}

// lines is the screen's text, trailing spaces trimmed.
func (s *screen) lines() []string {
	out := make([]string, len(s.rows))
	for i, r := range s.rows {
		out[i] = strings.TrimRight(string(r), " ")
	}
	return out
}

// drawn is one frame as seen in the stream: the cursor ups of the erase
// that preceded it (erased is false for the first frame) and its content.
type drawn struct {
	erased  bool
	ups     int
	erase   []token
	content []token
}

// splitFrames cuts the stream at every erase sequence: \r, clear line, then
// any number of (cursor up, clear line). A \r inside content only comes from
// the pty's newline translation, right before \n.
func splitFrames(t *testing.T, toks []token) []drawn {
	t.Helper()
	frames := []drawn{{}}
	for i := 0; i < len(toks); i++ {
		if toks[i].kind == tokCR && i+1 < len(toks) && toks[i+1].kind == tokClear {
			f := drawn{erased: true, erase: toks[i : i+2]}
			i += 2
			for i+1 < len(toks) && toks[i].kind == tokUp && toks[i+1].kind == tokClear {
				f.ups++
				f.erase = append(f.erase, toks[i], toks[i+1])
				i += 2
			}
			i--
			frames = append(frames, f)
			continue
		}
		switch toks[i].kind {
		case tokUp, tokClear:
			t.Fatalf("cursor movement outside an erase sequence at token %d", i)
		case tokCR:
			if i+1 >= len(toks) || toks[i+1].kind != tokLF {
				t.Fatalf("bare carriage return inside a frame at token %d", i)
			}
		}
		last := &frames[len(frames)-1]
		last.content = append(last.content, toks[i])
	}
	return frames
}

// textLines is the frame's content as lines; colour is dropped.
func textLines(toks []token) []string {
	var lines []string
	var cur strings.Builder
	for _, tok := range toks {
		switch tok.kind {
		case tokText:
			cur.WriteRune(tok.r)
		case tokLF:
			lines = append(lines, cur.String())
			cur.Reset()
		}
	}
	return append(lines, cur.String())
}

// isPermanent reports whether line is printed once above the live region:
// a finished change, or a notice (the CLI's notices start with "kyku: ").
func isPermanent(line string) bool {
	if strings.HasPrefix(line, "kyku: ") {
		return true
	}
	for _, sym := range []string{symDone, symFailed, symSkipped} {
		if strings.HasPrefix(line, sym+" ") {
			return true
		}
	}
	return false
}
