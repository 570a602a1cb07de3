package command

import (
	"strings"
	"testing"
)

// FuzzParse: any comment body (anyone who can comment writes it) parses
// without panicking, the same way twice, and holds no command once every
// line is indented as code or quoted; a valid command's names pass the
// name rules and its canonical form parses back to the same command. The
// seeds run in every `go test`; `go test -fuzz FuzzParse` explores further.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"", "/kyku", "/kyku apply", "/kyku apply -e prod -p net", "/kyku plan --env=prod --project=a/b",
		"/kyku apply -e ../../etc", "/kyku apply -e", "/kyku apply -e -p", "/kyku apply --env=a --env=b",
		"```\n/kyku apply\n```", "<!--\n/kyku apply\n-->", "> /kyku apply", "/kyku\tapply\r\n-e x",
		"/kyku apply -e pröd", "/kyku " + strings.Repeat("-e x ", 1000), "\x00/kyku apply", "/kyku apply\u00a0-e prod",
		"~~~~\n/kyku plan\n~~~", "    /kyku apply", "<!-- a --> /kyku apply", "/kyku help me",
		"\t/kyku apply", "<pre>\n/kyku apply\n</pre>", "<code>\n/kyku apply", "`\n/kyku apply\n`", "> q\n/kyku apply",
		"<pre\n/kyku apply", "``` `\n/kyku plan", "<!--<pre>-->\n/kyku plan", "<code/>\n/kyku plan",
		"<?\n/kyku apply\n?>", "<!x\n/kyku apply\n>", "<![CDATA[\n/kyku apply\n]]>", "<?x?>\n/kyku plan",
		"/kyku apply --allow-destroy-all", "/kyku apply -e prod --allow-destroy-all --allow-destroy-all",
		"/kyku plan --allow-destroy-all", "/kyku apply --allow-destroy-all=yes", "/kyku apply -e prod.eu",
		"/kyku apply -e " + strings.Repeat("a", 65),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		// Indented or quoted as a whole, no body holds a command.
		lines := strings.Split(strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\r", "\n"), "\n")
		for _, p := range []string{"\t", "    ", "> "} {
			if c, ok := Parse(p + strings.Join(lines, "\n"+p)); ok {
				t.Fatalf("%q with every line prefixed by %q parses to %+v", body, p, c)
			}
		}
		c, ok := Parse(body)
		c2, ok2 := Parse(body)
		if ok != ok2 || c.String() != c2.String() || c.Err != c2.Err {
			t.Fatalf("parse not deterministic: %+v %+v", c, c2)
		}
		if !ok {
			if c.Name != Unknown || c.Err != "" || len(c.Args) != 0 {
				t.Fatalf("no command but %+v", c)
			}
			return
		}
		if len(c.Args) > len(body)/2+1 {
			t.Fatalf("%d args from %d bytes", len(c.Args), len(body))
		}
		if c.Err != "" {
			return
		}
		switch c.Name {
		case Plan, Apply, Help:
		default:
			t.Fatalf("valid command with name %v", c.Name)
		}
		if (c.Env != "" && !validEnv(c.Env)) || (c.Project != "" && !validProject(c.Project)) ||
			(c.AllowDestroyAll && c.Name != Apply) {
			t.Fatalf("names passed that the rules refuse: %+v", c)
		}
		back, ok := Parse(c.String())
		if !ok || back.Err != "" || back.Name != c.Name || back.Env != c.Env || back.Project != c.Project || back.AllowDestroyAll != c.AllowDestroyAll {
			t.Fatalf("%q parses to %+v, its canonical form %q to %+v", body, c, c.String(), back)
		}
	})
}
