package markdown

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// The texts below are what an attacker would write: a branch, file or
// resource name, an error message, a link.
func TestEscaping(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
	}{
		{"code", Code("main"), "`main`"},
		{"code empty", Code(""), "`\"\"`"},
		{"code folds white space", Code(" a \t b\n\nc "), "`a b c`"},
		{"code longer fence than any run", Code("a``b`c"), "```a``b`c```"},
		{"code padded around an edge backtick", Code("`x`"), "`` `x` ``"},
		{"code cannot end its paragraph", Code("x\n\n# heading <b>@octocat</b>"), "`x # heading <b>@octocat</b>`"},
		{"span keeps spaces", Span("a  b"), "`a  b`"},
		{"span replaces line breaks", Span("a\r\nb\nc\rd"), "`a b c d`"},
		{"cell escapes pipes", Cell("a|b`c"), "``a\\|b`c``"},
		{"block", Block("line\n"), "```text\nline\n```\n"},
		{"block fence outlasts the text's", Block("````\n# x\n````"), "`````text\n````\n# x\n````\n`````\n"},
		{"text", Text("*a* [b](c) <i> x|y @octocat &amp; #1 ~s~ !"), "\\*a\\* \\[b\\]\\(c\\) \\<i\\> x\\|y @\u200boctocat \\&amp; \\#1 \\~s\\~ \\!"},
		{"html", HTML(`<b title="x">@octocat & co</b>`), "&lt;b title=&quot;x&quot;&gt;@\u200boctocat &amp; co&lt;/b&gt;"},
		{"url", URL("https://github.example/a/b (c)<d>"), "https://github.example/a/b%20%28c%29%3Cd%3E"},
		{"url javascript", URL("javascript:alert(1)"), ""},
		{"url relative", URL("/a/b"), ""},
		{"url no host", URL("https:///x"), ""},
		{"link", Link("run", "https://github.example/r/1"), "[run](https://github.example/r/1)"},
		{"link unsafe is the bare label", Link("run", "javascript:alert(1)"), "run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzCode: whatever s is, its code span is one line that shows s with
// white space folded, read back as GitHub reads a code span.
func FuzzCode(f *testing.F) {
	for _, s := range []string{"", "`", "``a``", " ` ", "a\n\nb", "x`y``z```", "\t\r\n", "@a <b>|c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		got := Code(s)
		if strings.ContainsAny(got, "\r\n") {
			t.Fatalf("Code(%q) = %q spans lines", s, got)
		}
		want := strings.Join(strings.Fields(s), " ")
		if want == "" {
			want = `""`
		}
		if read := readSpan(t, got); read != want {
			t.Fatalf("Code(%q) = %q reads as %q, want %q", s, got, read, want)
		}
	})
}

// FuzzBlock: no line of s closes the block it is put in.
func FuzzBlock(f *testing.F) {
	for _, s := range []string{"", "```", "a\n```\nb", "````text\n", "`\n``\n```\n````"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Block(s)
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		fence := strings.TrimSuffix(lines[0], "text")
		if lines[len(lines)-1] != fence || len(fence) < 3 {
			t.Fatalf("Block(%q) = %q: not closed by its fence", s, got)
		}
		for _, l := range lines[1 : len(lines)-1] {
			if in := strings.TrimLeft(l, " "); strings.HasPrefix(in, fence) && strings.Trim(in, "` ") == "" {
				t.Fatalf("Block(%q): its line %q closes the block", s, l)
			}
		}
	})
}

// readSpan is the content of the one code span s is, as CommonMark reads
// it: the text between a backtick run and the next run of the same
// length, one leading and trailing space stripped when both are there.
func readSpan(t *testing.T, s string) string {
	t.Helper()
	n := len(s) - len(strings.TrimLeft(s, "`"))
	fence := s[:n]
	body, ok := strings.CutPrefix(s, fence)
	if !ok || !strings.HasSuffix(body, fence) || len(body) < n {
		t.Fatalf("%q is not one code span", s)
	}
	body = body[:len(body)-n]
	for i := 0; i < len(body); {
		j := i
		for j < len(body) && body[j] == '`' {
			j++
		}
		if j-i == n {
			t.Fatalf("%q: the span closes early at byte %d", s, n+i)
		}
		i = max(j, i+1)
	}
	if len(body) >= 2 && body[0] == ' ' && body[len(body)-1] == ' ' && strings.Trim(body, " ") != "" {
		body = body[1 : len(body)-1]
	}
	return body
}
