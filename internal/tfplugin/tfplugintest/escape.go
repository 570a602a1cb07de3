package tfplugintest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfplugin"
)

// Escapes is what a test has fwtest_escape try, the data source (and
// resource) of the framework test provider that tries to get out of its
// sandbox, and what each try finds when it gets through:
//
//   - the environment of its parent (the test process, standing for the
//     bot or the Action: ParentEnv is an entry of it) and of another
//     process (the test process, by its ID);
//   - a file of the bot's (BotFile, mode 0600, holding BotSecret);
//   - a write to a path outside its working directory (Outside);
//   - the metadata address: a stand-in server the test controls on
//     127.0.0.2 (Metadata), answering MetadataSecret. Tests deny it with
//     Deny; the bot's own defaults deny every loopback address, this one
//     included, as well as the real link-local ones;
//   - a user namespace of its own (where it would hold every capability);
//   - a server it may reach (Cloud, on 127.0.0.1), answering CloudAnswer:
//     a sandboxed provider keeps its network.
type Escapes struct {
	ParentEnv      string
	Pid            int
	BotFile        string
	BotSecret      string
	Outside        string
	Metadata       string // host:port
	MetadataSecret string
	Cloud          string // URL
	CloudAnswer    string
}

// NewEscapes starts the stand-in servers (stopped when the test ends) and
// writes the bot's file.
func NewEscapes(t testing.TB) *Escapes {
	t.Helper()
	env, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		t.Fatalf("this process's environment: %v", err)
	}
	e := &Escapes{Pid: os.Getpid(), BotSecret: "-----BEGIN BOT PRIVATE KEY----- kyku-test",
		MetadataSecret: "metadata-credentials-kyku-test", CloudAnswer: "cloud-answer-kyku-test"}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if e.ParentEnv == "" || bytes.HasPrefix(kv, []byte("PATH=")) {
			e.ParentEnv = string(kv)
		}
	}
	if e.ParentEnv == "" {
		t.Fatal("this process has an empty environment: nothing to look for in it")
	}
	dir := t.TempDir()
	e.BotFile = filepath.Join(dir, "bot-app.pem")
	if err := os.WriteFile(e.BotFile, []byte(e.BotSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	e.Outside = filepath.Join(dir, "escaped")
	e.Metadata = serve(t, "127.0.0.2:0", e.MetadataSecret)
	e.Cloud = "http://" + serve(t, "127.0.0.1:0", e.CloudAnswer) + "/"
	return e
}

// serve answers every request on addr with body; it returns the address.
func serve(t testing.TB, addr, body string) string {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("stand-in server: %v", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, body)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String()
}

// Deny makes the stand-in's address the one denied, as a metadata
// address is.
func (e *Escapes) Deny() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}
}

// Props are fwtest_escape's properties trying every escape, reading the
// variables env and the files read too (credentials granted, or not).
func (e *Escapes) Props(env []string, read ...string) map[string]any {
	return map[string]any{
		"read":    list(append([]string{e.BotFile, fmt.Sprintf("/proc/%d/environ", e.Pid)}, read...)...),
		"write":   list(e.Outside),
		"connect": list(e.Metadata),
		"fetch":   list("http://"+e.Metadata+"/latest/meta-data/", e.Cloud),
		"env":     list(env...),
	}
}

// YAML is Props as the flow mapping of a configuration's properties.
func (e *Escapes) YAML(env []string, read ...string) string {
	var b strings.Builder
	b.WriteString("{ ")
	for i, k := range []string{"read", "write", "connect", "fetch", "env"} {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k + ": [")
		for j, v := range e.Props(env, read...)[k].([]any) {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(v.(string)))
		}
		b.WriteString("]")
	}
	b.WriteString(" }")
	return b.String()
}

func list(ss ...string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// Succeeded lists the escapes that got through, from fwtest_escape's
// report (its report attribute) and what is on the disk.
func (e *Escapes) Succeeded(report string) []string {
	var out []string
	line := func(prefix string) string {
		for _, l := range strings.Split(report, "\n") {
			if rest, ok := strings.CutPrefix(l, prefix); ok {
				return rest
			}
		}
		return ""
	}
	if strings.Contains(line("parent environ: "), e.ParentEnv) {
		out = append(out, "parent environ")
	}
	if strings.Contains(line(fmt.Sprintf("read /proc/%d/environ: ", e.Pid)), e.ParentEnv) {
		out = append(out, "other process environ")
	}
	for _, pid := range strings.Split(line("pids: "), ", ") {
		if pid == strconv.Itoa(e.Pid) {
			out = append(out, "process list")
		}
	}
	if strings.Contains(line("read "+e.BotFile+": "), e.BotSecret) {
		out = append(out, "bot file")
	}
	if _, err := os.Stat(e.Outside); err == nil {
		out = append(out, "write outside")
	}
	if line("connect "+e.Metadata+": ") == "connected" {
		out = append(out, "metadata connect")
	}
	if strings.Contains(line("fetch http://"+e.Metadata+"/latest/meta-data/: "), e.MetadataSecret) {
		out = append(out, "metadata fetch")
	}
	if line("user namespace: ") == "created" {
		out = append(out, "user namespace")
	}
	return out
}

// AllEscapes is what Succeeded lists when nothing stops the provider.
func AllEscapes() []string {
	return []string{"parent environ", "other process environ", "process list", "bot file", "write outside", "metadata connect", "metadata fetch", "user namespace"}
}

// ReachedCloud reports whether the provider fetched the allowed server's
// answer.
func (e *Escapes) ReachedCloud(report string) bool {
	return strings.Contains(report, "fetch "+e.Cloud+": 200 "+e.CloudAnswer)
}

// RequireSandbox fails the test where sb cannot be had (bubblewrap
// missing: .ci/run installs it), and skips it where Kyku does not run as
// root when sb wants the network of its own that needs it.
func RequireSandbox(t testing.TB, sb *tfplugin.Sandbox) {
	t.Helper()
	if sb.Network == tfplugin.NetworkProxied && os.Geteuid() != 0 {
		t.Skip("a proxied network needs root")
	}
	if err := tfplugin.CheckSandbox(context.Background(), sb); err != nil {
		t.Fatalf("the provider sandbox (apt-get install bubblewrap; .ci/run installs it): %v", err)
	}
}

// ReportIn is the report a resource's tags hold in a saved plan
// (plan.json): the configuration shows a data source's report as
// tags: { report: "${look.report}" } of a resource of Kyku's own.
func ReportIn(t testing.TB, planFile, resource string) string {
	t.Helper()
	data, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	var pj struct {
		Changes []struct {
			ResourceID string `json:"resourceId"`
			Properties []struct {
				Path string `json:"path"`
				New  any    `json:"new"`
			} `json:"properties"`
		} `json:"changes"`
	}
	if err := json.Unmarshal(data, &pj); err != nil {
		t.Fatalf("%s: %v", planFile, err)
	}
	for _, c := range pj.Changes {
		for _, p := range c.Properties {
			if tags, ok := p.New.(map[string]any); c.ResourceID == resource && p.Path == "tags" && ok {
				if report, ok := tags["report"].(string); ok {
					return report
				}
			}
		}
	}
	t.Fatalf("no report in %s's tags in %s:\n%s", resource, planFile, data)
	return ""
}
