package command

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		body string
		want Command
		ok   bool
	}{
		// Not a command.
		{"empty", "", Command{}, false},
		{"plain comment", "LGTM, ship it", Command{}, false},
		{"mention in prose", "please run /kyku apply later", Command{}, false},
		{"quoted reply", "> /kyku apply\n\nwhy did this fail?", Command{}, false},
		{"nested quote", ">> /kyku apply -e prod", Command{}, false},
		{"inline code", "`/kyku apply`", Command{}, false},
		{"list item", "- /kyku apply", Command{}, false},
		{"capitalised", "/Kyku apply", Command{}, false},
		{"prefix of a word", "/kykuapply", Command{}, false},
		{"other bot", "/atlantis apply", Command{}, false},
		{"in backtick fence", "Try:\n```\n/kyku apply\n```\n", Command{}, false},
		{"in tilde fence", "~~~sh\n/kyku apply\n~~~", Command{}, false},
		{"in long fence closed by longer", "````\n```\n/kyku apply\n`````\n", Command{}, false},
		{"in unclosed fence", "```\n/kyku apply", Command{}, false},
		{"in fence with CRLF", "```\r\n/kyku apply\r\n```\r\n", Command{}, false},
		{"in html comment", "<!--\n/kyku apply\n-->", Command{}, false},
		// A command in code or a quote never counts (issue 20, attack 8):
		// whatever GitHub shows as code, quoted or hidden.
		{"indented four spaces", "Run this:\n\n    /kyku apply\n", Command{}, false},
		{"indented code after text", "Run this:\n    /kyku apply", Command{}, false},
		{"tab-indented", "\t/kyku apply", Command{}, false},
		{"spaces then a tab", "   \t/kyku apply", Command{}, false},
		{"two spaces and a tab", "  \t/kyku apply -e prod", Command{}, false},
		{"in pre", "<pre>\n/kyku apply\n</pre>", Command{}, false},
		{"in pre with attributes", "<PRE class=\"x\">\n/kyku apply\n</PRE>", Command{}, false},
		{"in pre opened mid-line", "output: <pre>\n/kyku apply\n</pre>", Command{}, false},
		{"in unclosed pre", "<pre>\n/kyku apply", Command{}, false},
		{"in code element", "<code>\n/kyku apply\n</code>", Command{}, false},
		{"in nested raw elements", "<pre><code>\nx</code>\n/kyku apply\n</pre>", Command{}, false},
		{"in kbd", "<kbd>\n/kyku apply</kbd>", Command{}, false},
		{"in a code span across lines", "run `\n/kyku apply\n` to ship", Command{}, false},
		{"in a double-backtick span", "run ``a ` b\n/kyku apply``", Command{}, false},
		{"lazy quote continuation", "> quoting the author:\n/kyku apply", Command{}, false},
		{"lazy continuation of a nested quote", ">> x\n/kyku apply -e prod", Command{}, false},
		{"in a quoted fence", "> ```\n> /kyku apply\n> ```", Command{}, false},
		{"in html comment opened mid-line", "note <!-- hidden\n/kyku apply\n-->", Command{}, false},
		{"in html comment inside pre", "<pre><!--\n/kyku apply\n--></pre>", Command{}, false},
		// HTML blocks GitHub's sanitizer drops (CommonMark's types 3 to 5):
		// a processing instruction, a declaration, a CDATA section.
		{"in processing instruction", "LGTM, thanks!\n\n<?\n/kyku apply\n?>", Command{}, false},
		{"in declaration", "LGTM, thanks!\n\n<!x\n/kyku apply\n>", Command{}, false},
		{"in cdata", "LGTM, thanks!\n\n<![CDATA[\n/kyku apply\n]]>", Command{}, false},
		{"in processing instruction opened mid-line", "note <?php echo\n/kyku apply\n?>", Command{}, false},
		{"in indented processing instruction", "   <?\n/kyku apply\n?>", Command{}, false},
		{"in unclosed processing instruction", "<?\n/kyku apply", Command{}, false},
		{"processing instruction not closed by >", "<?\na > b\n/kyku apply\n?>", Command{}, false},
		{"in upper-case declaration", "<!DOCTYPE html\n/kyku apply\n>", Command{}, false},
		{"in lower-case cdata", "<![cdata[\n/kyku apply\n]]>", Command{}, false},
		{"cdata not closed by >", "<![CDATA[ a > b\n/kyku apply\n]]>", Command{}, false},
		{"in unclosed cdata", "<![CDATA[\n/kyku apply", Command{}, false},

		// Commands.
		{"alone means help", "/kyku", Command{Name: Help}, true},
		{"alone with spaces", "  /kyku  \t", Command{Name: Help}, true},
		{"help", "/kyku help", Command{Name: Help, Args: []string{"help"}}, true},
		{"plan", "/kyku plan", Command{Name: Plan, Args: []string{"plan"}}, true},
		{"apply", "/kyku apply", Command{Name: Apply, Args: []string{"apply"}}, true},
		{"leading spaces", "   /kyku apply", Command{Name: Apply, Args: []string{"apply"}}, true},
		{"CRLF body", "Approved.\r\n/kyku apply -e prod\r\nthanks\r\n",
			Command{Name: Apply, Env: "prod", Args: []string{"apply", "-e", "prod"}}, true},
		{"old mac line ends", "hi\r/kyku plan\r", Command{Name: Plan, Args: []string{"plan"}}, true},
		{"after a closed fence", "```\n/kyku help\n```\n/kyku plan", Command{Name: Plan, Args: []string{"plan"}}, true},
		{"after a closed html comment", "<!-- note -->\n/kyku plan", Command{Name: Plan, Args: []string{"plan"}}, true},
		{"after a closed processing instruction", "<?\nx\n?>\n/kyku plan", Command{Name: Plan, Args: []string{"plan"}}, true},
		{"after a closed declaration", "<!x\ny>\n/kyku plan", Command{Name: Plan, Args: []string{"plan"}}, true},
		{"after a closed cdata", "<![CDATA[x\n]]>\n/kyku plan", Command{Name: Plan, Args: []string{"plan"}}, true},
		{"after <! and a digit (shown as text)", "<!1\n/kyku plan", Command{Name: Plan, Args: []string{"plan"}}, true},
		{"after <? in a code span", "see `<?`\n/kyku plan", Command{Name: Plan, Args: []string{"plan"}}, true},
		{"after a quote and a blank line", "> /kyku plan\n\n/kyku apply", Command{Name: Apply, Args: []string{"apply"}}, true},
		{"after a closed pre", "<pre>\n/kyku apply\n</pre>\n/kyku plan", Command{Name: Plan, Args: []string{"plan"}}, true},
		{"after a closed code span", "see `x`\n/kyku plan", Command{Name: Plan, Args: []string{"plan"}}, true},
		{"code span closed across lines", "see `x\ny` here\n/kyku plan", Command{Name: Plan, Args: []string{"plan"}}, true},
		{"code span cut by a blank line", "see `x\n\n/kyku plan", Command{Name: Plan, Args: []string{"plan"}}, true},
		{"first line counts", "/kyku plan\n/kyku apply", Command{Name: Plan, Args: []string{"plan"}}, true},
		{"first line counts even if invalid", "/kyku bogus\n/kyku apply",
			Command{Name: Unknown, Args: []string{"bogus"}, Err: `unknown command "bogus"`}, true},
		{"-e env", "/kyku apply -e prod", Command{Name: Apply, Env: "prod", Args: []string{"apply", "-e", "prod"}}, true},
		{"--env env", "/kyku apply --env staging", Command{Name: Apply, Env: "staging", Args: []string{"apply", "--env", "staging"}}, true},
		{"-e=env", "/kyku plan -e=prod", Command{Name: Plan, Env: "prod", Args: []string{"plan", "-e=prod"}}, true},
		{"--env=env", "/kyku plan --env=prod-eu_1", Command{Name: Plan, Env: "prod-eu_1", Args: []string{"plan", "--env=prod-eu_1"}}, true},
		{"allow destroy all", "/kyku apply -e prod --allow-destroy-all",
			Command{Name: Apply, Env: "prod", AllowDestroyAll: true, Args: []string{"apply", "-e", "prod", "--allow-destroy-all"}}, true},
		{"allow destroy all on plan", "/kyku plan --allow-destroy-all",
			Command{Name: Plan, Args: []string{"plan", "--allow-destroy-all"}, Err: "flag --allow-destroy-all goes with /kyku apply only"}, true},
		{"allow destroy all with a value", "/kyku apply --allow-destroy-all=true",
			Command{Name: Apply, Args: []string{"apply", "--allow-destroy-all=true"}, Err: "flag --allow-destroy-all takes no value"}, true},
		{"allow destroy all twice", "/kyku apply --allow-destroy-all --allow-destroy-all",
			Command{Name: Apply, AllowDestroyAll: true, Args: []string{"apply", "--allow-destroy-all", "--allow-destroy-all"}, Err: "flag --allow-destroy-all given twice"}, true},
		{"allow destroy all misspelt", "/kyku apply --allow-destroy",
			Command{Name: Apply, Args: []string{"apply", "--allow-destroy"}, Err: `unknown flag "--allow-destroy"`}, true},
		{"env with a dot", "/kyku apply -e prod.eu", Command{Name: Apply, Args: []string{"apply", "-e", "prod.eu"}, Err: `invalid environment name "prod.eu" (use ` + envRule + `)`}, true},
		{"env too long", "/kyku apply -e " + strings.Repeat("a", 65), Command{Name: Apply, Args: []string{"apply", "-e", strings.Repeat("a", 65)}, Err: `invalid environment name "` + strings.Repeat("a", 39) + `…" (use ` + envRule + `)`}, true},
		{"project and env", "/kyku apply -p infra/core --env prod",
			Command{Name: Apply, Env: "prod", Project: "infra/core", Args: []string{"apply", "-p", "infra/core", "--env", "prod"}}, true},
		{"--project=", "/kyku plan --project=net", Command{Name: Plan, Project: "net", Args: []string{"plan", "--project=net"}}, true},
		{"tabs between words", "/kyku\tapply\t-e\tprod", Command{Name: Apply, Env: "prod", Args: []string{"apply", "-e", "prod"}}, true},

		// Invalid commands: ok, with Err.
		{"unknown subcommand", "/kyku destroy", Command{Name: Unknown, Args: []string{"destroy"}, Err: `unknown command "destroy"`}, true},
		{"subcommand is case-sensitive", "/kyku Apply", Command{Name: Unknown, Args: []string{"Apply"}, Err: `unknown command "Apply"`}, true},
		{"trailing text", "/kyku apply please",
			Command{Name: Apply, Args: []string{"apply", "please"}, Err: `unexpected argument "please"`}, true},
		{"unknown flag", "/kyku apply -f", Command{Name: Apply, Args: []string{"apply", "-f"}, Err: `unknown flag "-f"`}, true},
		{"unknown long flag", "/kyku apply --force=yes", Command{Name: Apply, Args: []string{"apply", "--force=yes"}, Err: `unknown flag "--force"`}, true},
		{"missing value", "/kyku apply -e", Command{Name: Apply, Args: []string{"apply", "-e"}, Err: "flag --env needs an environment name"}, true},
		{"flag as value", "/kyku apply -e -p x", Command{Name: Apply, Args: []string{"apply", "-e", "-p", "x"}, Err: "flag --env needs an environment name"}, true},
		{"missing project", "/kyku plan --project", Command{Name: Plan, Args: []string{"plan", "--project"}, Err: "flag --project needs a project name"}, true},
		{"empty value", "/kyku apply -e=", Command{Name: Apply, Args: []string{"apply", "-e="}, Err: `invalid environment name "" (use ` + envRule + `)`}, true},
		{"repeated flag", "/kyku apply -e prod --env dev",
			Command{Name: Apply, Env: "prod", Args: []string{"apply", "-e", "prod", "--env", "dev"}, Err: "flag --env given twice"}, true},
		{"env with slash", "/kyku apply -e ../prod", Command{Name: Apply, Args: []string{"apply", "-e", "../prod"}, Err: `invalid environment name "../prod" (use ` + envRule + `)`}, true},
		{"env with markup", "/kyku apply -e <b>x", Command{Name: Apply, Args: []string{"apply", "-e", "<b>x"}, Err: `invalid environment name "<b>x" (use ` + envRule + `)`}, true},
		{"project escaping up", "/kyku plan -p a/../../b", Command{Name: Plan, Args: []string{"plan", "-p", "a/../../b"}, Err: `invalid project name "a/../../b"`}, true},
		{"long word cut in message", "/kyku aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
			Command{Name: Unknown, Args: []string{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, Err: `unknown command "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…"`}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Parse(tt.body)
			if ok != tt.ok {
				t.Fatalf("Parse(%q) ok = %v, want %v", tt.body, ok, tt.ok)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.body, diff)
			}
		})
	}
}

const envRule = "letters, digits, '_' and '-' (not first), at most 64 characters"

func TestCommandString(t *testing.T) {
	tests := []struct {
		c    Command
		want string
	}{
		{Command{Name: Apply, Env: "prod"}, "/kyku apply -e prod"},
		{Command{Name: Plan, Env: "prod", Project: "net"}, "/kyku plan -e prod -p net"},
		{Command{Name: Help}, "/kyku help"},
		{Command{Name: Apply, Env: "prod", AllowDestroyAll: true}, "/kyku apply -e prod --allow-destroy-all"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.c.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			// The canonical form parses back to the same command.
			back, ok := Parse(tt.c.String())
			back.Args = nil
			if !ok || back.Err != "" {
				t.Fatalf("Parse(%q) = %+v, %v", tt.c.String(), back, ok)
			}
			if diff := cmp.Diff(tt.c, back); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNameString(t *testing.T) {
	for n, want := range map[Name]string{Unknown: "unknown", Plan: "plan", Apply: "apply", Help: "help", Name(42): "unknown"} {
		if got := n.String(); got != want {
			t.Errorf("Name(%d).String() = %q, want %q", n, got, want)
		}
	}
}
