package doctest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// outputNote marks a block as what a command prints:
// "<!-- output of: kyku plan -c examples/quickstart -->".
const outputNote = "output of:"

// isElision is a line of a shown output that stands for any lines.
func isElision(line string) bool {
	t := strings.TrimSpace(line)
	return t == "..." || t == "…"
}

// matchOutput says whether got is what shown shows: shown's lines, trailing
// blanks aside, in order, a "..." (or "…") line standing for any number of
// lines; without one at either end, shown starts and ends where got does.
// It returns the first shown line it could not place ("" when it matched).
func matchOutput(shown, got []string) string {
	trim := func(ls []string) []string {
		out := make([]string, len(ls))
		for i, l := range ls {
			out[i] = strings.TrimRight(l, " \t")
		}
		for len(out) > 0 && out[len(out)-1] == "" {
			out = out[:len(out)-1]
		}
		return out
	}
	shown, got = trim(shown), trim(got)
	var segs [][]string // the runs of lines between elisions
	cur := []string{}
	for _, l := range shown {
		if isElision(l) {
			segs = append(segs, cur)
			cur = []string{}
			continue
		}
		cur = append(cur, l)
	}
	segs = append(segs, cur)
	at := 0
	for i, seg := range segs {
		first, last := i == 0, i == len(segs)-1
		found := -1
		for j := at; j+len(seg) <= len(got); j++ {
			if first && j != 0 {
				break
			}
			if last && j+len(seg) != len(got) {
				continue
			}
			if equalLines(seg, got[j:j+len(seg)]) {
				found = j
				break
			}
		}
		if found < 0 {
			if len(seg) == 0 {
				return "(the end of the output)"
			}
			return seg[0]
		}
		at = found + len(seg)
	}
	return ""
}

func equalLines(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDocOutputsMatch: every block README.md or a docs/ page marks with
// "<!-- output of: COMMAND -->" is what COMMAND prints today, run as
// TestDocCommandsRun runs commands (the CLI built from this checkout, a
// fresh copy of examples/, no state), "..." lines standing for what the
// page leaves out. An output sample that went stale fails here.
func TestDocOutputsMatch(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the CLI")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	root := repoRoot(t)
	bin := filepath.Dir(kykuBinary(t))
	n := 0
	for _, rel := range docPages(t, root) {
		p := readPage(t, root, rel)
		for _, b := range p.blocks {
			command, ok := strings.CutPrefix(b.note, outputNote)
			if !ok {
				continue
			}
			command = strings.TrimSpace(command)
			n++
			name := rel + ":" + strconv.Itoa(b.line)
			t.Run(name, func(t *testing.T) {
				work := t.TempDir()
				copyDir(t, filepath.Join(root, "examples"), filepath.Join(work, "examples"))
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, sh, "-c", command)
				cmd.Dir = work
				cmd.Env = []string{"PATH=" + bin + string(os.PathListSeparator) + "/usr/bin:/bin", "HOME=" + t.TempDir(), "TMPDIR=" + os.TempDir(), "NO_COLOR=1"}
				cmd.Stdin = bytes.NewReader(nil)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %s fails (%v):\n%s", name, command, err, out)
				}
				if miss := matchOutput(b.lines, strings.Split(string(out), "\n")); miss != "" {
					t.Errorf("%s: the output shown is not what %s prints: %q is not where the page shows it.\nshown:\n%s\n---\nprinted:\n%s",
						name, command, miss, strings.Join(b.lines, "\n"), out)
				}
			})
		}
	}
	if n == 0 {
		t.Error("no block is marked <!-- output of: … -->: the README's plan is not checked")
	}
}

// TestMatchOutput: the elision rules TestDocOutputsMatch compares by.
func TestMatchOutput(t *testing.T) {
	got := []string{"Plan: 2", "", "a", "b", "c", "d", "end", ""}
	for _, tc := range []struct {
		name, shown, miss string
	}{
		{"whole", "Plan: 2\n\na\nb\nc\nd\nend", ""},
		{"elided middle", "Plan: 2\n...\nc\n  …\nend", ""},
		{"elided ends", "...\nb\nc\n...", ""},
		{"a line changed", "Plan: 2\n...\nx\n...", "x"},
		{"out of order", "...\nc\n...\nb\n...", "b"},
		{"must start at the start", "a\n...", "a"},
		{"must end at the end", "...\nc", "c"},
		{"a line left out without an elision", "Plan: 2\n\na\nc\n...", "Plan: 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if miss := matchOutput(strings.Split(tc.shown, "\n"), got); miss != tc.miss {
				t.Errorf("matchOutput(%q) missed %q, want %q", tc.shown, miss, tc.miss)
			}
		})
	}
}
