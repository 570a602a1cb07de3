package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/cli"
)

// helpFlagRE is a flag line of a command's --help: "  -c, --config PATH …"
// or "      --json …".
var helpFlagRE = regexp.MustCompile(`^\s+(?:(-[a-zA-Z]), )?(--[a-z][a-z0-9-]*)\b`)

// declaredFlags are the flags each command takes, as its --help (the
// declarations docs/cli.md is generated from) lists them; a command with
// subcommands of their own help ("providers lock") is keyed by both words.
func declaredFlags(t *testing.T) map[string]map[string]bool {
	t.Helper()
	t.Chdir(t.TempDir())
	out := map[string]map[string]bool{}
	for _, c := range cli.Commands() {
		keys := [][]string{{c.Name}}
		for _, sub := range subcommandHelps[c.Name] {
			keys = append(keys, sub[:len(sub)-1])
		}
		for _, key := range keys {
			code, help, errOut := runBare(t, cli.Env{}, append(key, "--help")...)
			if code != 0 || errOut != "" {
				t.Fatalf("kyku %s --help: exit %d, stderr %q", strings.Join(key, " "), code, errOut)
			}
			flags := map[string]bool{"--help": true, "-h": true}
			for _, line := range strings.Split(help, "\n") {
				if m := helpFlagRE.FindStringSubmatch(line); m != nil {
					flags[m[2]] = true
					if m[1] != "" {
						flags[m[1]] = true
					}
				}
			}
			out[strings.Join(key, " ")] = flags
		}
	}
	return out
}

// docCodeRE finds code spans in a line of prose.
var docCodeRE = regexp.MustCompile("`+([^`]+)`+")

// kykuCallRE is a kyku command line inside code: "kyku plan -c x --out f",
// "go run ./cmd/kyku apply …", "$ kyku init"; it stops at what ends a
// command in a shell line (a pipe, ;, &&, a comment, a closing parenthesis).
var kykuCallRE = regexp.MustCompile(`(?:^|[\s$/(=])kyku((?: +[^\s|;&#)]+)+)`)

var shortFlagRE = regexp.MustCompile(`^-[a-zA-Z]$`)

// flagMention is a flag a page shows on a kyku command.
type flagMention struct {
	where, command, flag string
}

// docFlagMentions are the flags shown on kyku commands in the code of page
// (its code spans and code blocks), src being its text.
func docFlagMentions(page, src string, commands map[string]map[string]bool) []flagMention {
	var out []flagMention
	type code struct {
		line int
		text string
	}
	var codes []code
	var para []string // the prose paragraph read so far, whose code spans may run over lines
	paraLine := 0
	flush := func() {
		// In a table cell, \| is a literal | (an alternative, not a pipe).
		text := strings.ReplaceAll(strings.Join(para, " "), `\|`, " ")
		for _, m := range docCodeRE.FindAllStringSubmatch(text, -1) {
			codes = append(codes, code{paraLine, m[1]})
		}
		para = nil
	}
	inBlock := false
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			flush()
			inBlock = !inBlock
			continue
		}
		if inBlock {
			n := i
			for strings.HasSuffix(line, `\`) && i+1 < len(lines) { // a shell line continued
				i++
				line = strings.TrimSuffix(line, `\`) + " " + lines[i]
			}
			codes = append(codes, code{n + 1, line})
			continue
		}
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		if len(para) == 0 {
			paraLine = i + 1
		}
		para = append(para, line)
	}
	flush()
	for _, c := range codes {
		for _, ix := range kykuCallRE.FindAllStringSubmatchIndex(c.text, -1) {
			if at := ix[2] - len("kyku") - 1; at >= 0 && c.text[at] == '/' && (at == 0 || strings.ContainsRune(" \t\n(", rune(c.text[at-1]))) {
				continue // a pull-request comment's command (/kyku plan -p x), not the CLI
			}
			m := []string{c.text[ix[0]:ix[1]], c.text[ix[2]:ix[3]]}
			words := strings.Fields(m[1])
			cmd := words[0]
			if _, ok := commands[cmd]; !ok {
				continue // prose such as "kyku reads", or a path
			}
			if len(words) > 1 {
				if _, ok := commands[cmd+" "+words[1]]; ok {
					cmd += " " + words[1]
				}
			}
			for _, w := range words[1:] {
				flag, _, _ := strings.Cut(w, "=")
				flag = strings.Trim(flag, `"'.,:[]`)
				if strings.HasPrefix(flag, "--") && len(flag) > 2 || shortFlagRE.MatchString(flag) {
					out = append(out, flagMention{page + ":" + strconv.Itoa(c.line), cmd, flag})
				}
			}
		}
	}
	return out
}

// TestDocFlagsExist: every flag README.md and the docs/ pages show on a
// kyku command (`kyku plan --show-unchanged`, a shell line in a code block)
// is one that command declares, so a flag renamed or removed, or a page
// naming one that never existed, fails here with the page and line.
func TestDocFlagsExist(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	commands := declaredFlags(t)
	pages := []string{filepath.Join(root, "README.md")}
	err = filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(pages)
	checked := 0
	for _, path := range pages {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		for _, m := range docFlagMentions(filepath.ToSlash(rel), string(src), commands) {
			checked++
			if !commands[m.command][m.flag] {
				t.Errorf("%s: kyku %s has no flag %s (kyku %s --help)", m.where, m.command, m.flag, m.command)
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d flag mentions found in the docs: the extraction is broken", checked)
	}
}

// TestDocFlagMentions: the extraction finds a flag in a code span, in a
// code block (a continued shell line included) and on a subcommand, and
// takes nothing from prose or from a word that is not a command.
func TestDocFlagMentions(t *testing.T) {
	commands := map[string]map[string]bool{"plan": {}, "providers": {}, "providers mirror": {}}
	src := "Run `kyku plan --out p.json -c x` or\n" +
		"kyku plan --not-code in prose, `kyku reads --nothing`, `kyku\n" +
		"plan [--json \\| --format text] [--target NAME]…`.\n" +
		"```sh\n" +
		"$ go run ./cmd/kyku plan \\\n" +
		"    --target web | tee x --no\n" +
		"kyku providers mirror --platform linux_amd64 DIR # --comment\n" +
		"```\n" +
		"A comment `/kyku plan -p infra/net` is not the CLI.\n"
	got := docFlagMentions("p.md", src, commands)
	want := []flagMention{
		{"p.md:1", "plan", "--out"},
		{"p.md:1", "plan", "-c"},
		{"p.md:1", "plan", "--json"},
		{"p.md:1", "plan", "--format"},
		{"p.md:1", "plan", "--target"},
		{"p.md:5", "plan", "--target"},
		{"p.md:7", "providers mirror", "--platform"},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(flagMention{})); diff != "" {
		t.Errorf("mentions (-want +got):\n%s", diff)
	}
}
