package bot

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/review"
)

// jobKinds are the kinds of job intake may queue.
var jobKinds = map[string]bool{"pull_request": true, "merge": true, "comment": true, "repository_dispatch": true}

// FuzzWebhookPayload: whatever a (signed) delivery holds, turning it into
// a job never panics, and a job is one of the known kinds on a non-empty
// key (that metrics labels stay in their closed set whatever the event
// header says is intake's FuzzLabel). The seeds run in every `go test`;
// `go test -fuzz FuzzWebhookPayload` explores further.
func FuzzWebhookPayload(f *testing.F) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		f.Fatal(err)
	}
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	b, err := New(Options{
		Config: Config{AppID: 1, PrivateKey: pemBytes, WebhookSecret: []byte("s"), APIURL: "http://127.0.0.1:1/api/v3/", Workers: 1, QueueCapacity: 1},
		Open:   func(context.Context, Tenant, *config.Config, string) (*review.Workspace, error) { return nil, nil },
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = b.Shutdown(context.Background()) }) // f.Context has ended here

	repo := `"repository":{"name":"infra","full_name":"acme/infra","default_branch":"main","owner":{"login":"acme"}},"installation":{"id":7}`
	for _, seed := range []struct{ event, body string }{
		{"pull_request", `{"action":"opened",` + repo + `,"pull_request":{"number":2,"head":{"sha":"abc","repo":{"full_name":"acme/infra"}}}}`},
		{"pull_request", `{"action":"opened",` + repo + `,"pull_request":{"number":2,"head":{"sha":"abc","repo":null}}}`},
		{"pull_request", `{"action":"closed",` + repo + `,"pull_request":{"number":2,"merged":true,"merge_commit_sha":"m","head":{"sha":"abc"},"merged_by":null}}`},
		{"issue_comment", `{"action":"created",` + repo + `,"issue":{"number":2,"pull_request":{"url":"x"}},"comment":{"id":1,"body":"/kyku apply -e prod","user":{"login":"a","type":"User"}}}`},
		{"issue_comment", `{"action":"created",` + repo + `,"issue":{"number":2,"pull_request":null},"comment":{"id":1,"body":"/kyku plan","user":{"login":"a"}}}`},
		{"issue_comment", `{"action":"created",` + repo + `,"issue":null,"comment":null}`},
		{"repository_dispatch", `{"action":"kyku-drift",` + repo + `,"client_payload":{"project":"a","environment":"prod"}}`},
		{"repository_dispatch", `{"action":"kyku-drift",` + repo + `,"client_payload":"x"}`},
		{"ping", `{}`},
		{"pull_request", `{"action":"opened","installation":{"id":7}}`},
		{"pull_request", `[]`},
		{"pull_request", `{"action":1}`},
		{"issue_comment", strings.Repeat(`{"a":`, 5000)},
		{"x-evil-" + strings.Repeat("z", 100), `{}`},
	} {
		f.Add(seed.event, []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, event string, body []byte) {
		job, ignored, err := b.router.route(event, body)
		switch {
		case err != nil || ignored != "":
			if job.Run != nil {
				t.Fatalf("a job with an error or an ignore: %v %q", err, ignored)
			}
		default:
			if !jobKinds[job.Kind] || job.Key == "" || job.Run == nil {
				t.Fatalf("job %+v from %s", job, event)
			}
		}
	})
}
