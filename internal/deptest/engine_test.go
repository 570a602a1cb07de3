package deptest

import (
	"strings"
	"testing"
)

// engineParts are the libraries kyku leaves to kyku-engine, each with
// what it cost every start when kyku linked it (BenchmarkStartupParts
// measures each; docs/benchmarks.md, "Start-up").
var engineParts = []struct{ prefix, why string }{
	{"github.com/open-policy-agent/", "policies (cli/clipolicy): OPA registers its built-in functions and their types at start, 3.2× a hello world's CPU alone"},
	{"github.com/aws/", "the AWS provider, the s3 and spaces backends and aws-kms keys (workspace/awsstore): every service's endpoint table and the credential chain's schemas, 2.5× alone"},
	{"github.com/hetznercloud/", "the Hetzner provider: hcloud-go compiles its label regexps and registers its metrics, 2.8× alone with the Prometheus client"},
	{"github.com/prometheus/", "hcloud-go's instrumentation: the Prometheus client's default registry with its Go and process collectors"},
	{"github.com/ProtonMail/go-crypto/", "the signatures of what provider registries publish (tfinstall/pgpverify): OpenPGP and, through it, circl's curves and hashes, 56 packages"},
	{"github.com/cloudflare/circl/", "go-crypto's curves and hashes (tfinstall/pgpverify)"},
	{"golang.org/x/oauth2/google", "the gcs backend's Application Default Credentials (workspace.Settings.Google): the external account and impersonation packages build their tables at start, and pull the metadata server's client, 16 page faults of `kyku version`"},
	{"cloud.google.com/", "the GCE metadata server's client, through golang.org/x/oauth2/google"},
}

// kykuOmits are packages kyku does without altogether, each with what it
// cost every start when kyku linked it and what kyku uses instead
// (kyku-engine may link them, through its other parts).
var kykuOmits = []struct{ pkg, why string }{
	{"runtime/metrics", "the CLI's garbage collector budget reads the heap with runtime.ReadMemStats (cliproc/gc.go): runtime/metrics builds a description of every GODEBUG counter at start, 12 page faults of `kyku version`"},
	{"golang.org/x/crypto/ssh", "rsadecrypt reads OpenSSH private keys itself (lang/funcs/privatekey.go): the SSH package builds its algorithm tables at start, 13 page faults"},
}

// TestKykuLinksNoEngineParts: what kyku does not use for version and
// help, it does not link (Go initialises every linked package before main,
// whatever the command): cmd/kyku links none of engineParts, and
// cmd/kyku-engine, which runs the other commands, links each of them;
// cmd/kyku links none of kykuOmits either.
func TestKykuLinksNoEngineParts(t *testing.T) {
	const mod = "github.com/kyku/action/"
	for _, d := range deps(t, mod+"cmd/kyku") {
		for _, p := range engineParts {
			if strings.HasPrefix(d, p.prefix) {
				t.Errorf("cmd/kyku links %s: %s; reach it through cli.Env (kyku-engine's main sets it)", d, p.why)
			}
		}
		for _, o := range kykuOmits {
			if d == o.pkg {
				t.Errorf("cmd/kyku links %s: %s", d, o.why)
			}
		}
	}
	engine := deps(t, mod+"cmd/kyku-engine")
	for _, p := range engineParts {
		found := false
		for _, d := range engine {
			found = found || strings.HasPrefix(d, p.prefix)
		}
		if !found {
			t.Errorf("cmd/kyku-engine links nothing under %s: then what needs it (%s) runs nowhere", p.prefix, p.why)
		}
	}
}
