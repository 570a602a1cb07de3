package httpstate_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/httpstate"
	"github.com/kyku/action/internal/statemgr/httpstate/httpstatetest"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

// The secrets an address may carry: a token in its query string (GitLab's
// ?private_token=, ?access_token=…) and user:password@.
const (
	queryToken = "glpat-qUeRyT0kEn-s3cret"
	userPass   = "uSeRp4ss-s3cret"
)

// TestSecretsInTheAddressNeverReachAMessage: an http backend whose address
// carries a token in its query string and a password in its user
// information. No message — Describe, a config error, a network error, an
// HTTP error after retries, a 401, a held lock, a refused foreign
// document, the lock info stored on the server — shows either.
func TestSecretsInTheAddressNeverReachAMessage(t *testing.T) {
	ctx := t.Context()
	srv := httpstatetest.New(t)
	withSecrets := func(base, name string) string {
		return strings.Replace(base, "://", "://ci:"+userPass+"@", 1) + name + "?access_token=" + queryToken + "&project=7"
	}
	var messages []string
	see := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", what)
			return
		}
		messages = append(messages, what+": "+err.Error())
	}
	b := open(t, srv, "prod", nil, func(c *httpstate.Config) {
		c.Address, c.LockAddress, c.UnlockAddress = withSecrets(srv.URL, "prod"), withSecrets(srv.URL, "prod/lock"), withSecrets(srv.URL, "prod/lock")
	})
	messages = append(messages, "Describe: "+b.Describe())

	// The token still reaches the server (the query is kept when ?ID= is added).
	l, err := b.Lock(ctx, statemgrtest.NewLockInfo("apply"))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Write(ctx, statemgrtest.NewState("lin", 1, "web"), statemgr.WriteOptions{}); err != nil {
		t.Fatalf("Write with a token in the address: %v", err)
	}
	messages = append(messages, "lock info on the server: "+string(srv.Lock("prod")))
	other := open(t, srv, "prod", nil, func(c *httpstate.Config) {
		c.Address, c.LockAddress = withSecrets(srv.URL, "prod"), withSecrets(srv.URL, "prod/lock")
	})
	_, err = other.Lock(ctx, statemgrtest.NewLockInfo("plan"))
	see("held lock", err)
	_ = l.Unlock(ctx)

	srv.Fail(10)
	_, err = b.Read(ctx)
	see("HTTP 502 after retries", err)
	srv.Fail(0)

	srv.Username, srv.Password = "ci", "another-password"
	_, err = b.Read(ctx)
	see("HTTP 401", err)
	srv.Username = ""

	tf := open(t, srv, "terraform", nil, func(c *httpstate.Config) { c.Address = withSecrets(srv.URL, "terraform") })
	srvPost(t, tf)
	_, err = tf.Read(ctx)
	see("a foreign document", err)

	_, err = httpstate.New(httpstate.Config{Address: withSecrets(srv.URL, "state")}, "prod", httpstate.Options{})
	see("no {env}", err)
	_, err = httpstate.New(httpstate.Config{Address: "ftp://ci:" + userPass + "@example.com/x?access_token=" + queryToken}, "", httpstate.Options{})
	see("not an http URL", err)
	_, err = httpstate.New(httpstate.Config{Address: "http://ci:" + userPass + "@exa mple.com/x?access_token=" + queryToken}, "", httpstate.Options{})
	see("an address that does not parse", err)

	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	gone, err := httpstate.New(httpstate.Config{Address: withSecrets(dead.URL, "/x"), RetryMax: 1, RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond}, "", httpstate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = gone.Read(ctx)
	see("a network error", err)

	for _, m := range messages {
		if strings.Contains(m, queryToken) || strings.Contains(m, userPass) {
			t.Errorf("a secret of the address in a message: %s", m)
		}
	}
	if want := "access_token=REDACTED"; !strings.Contains(messages[0], want) || !strings.Contains(messages[0], "/prod") {
		t.Errorf("Describe = %s; want the address with %s", messages[0], want)
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"https://gitlab.example.com/api/v4/projects/7/terraform/state/prod": "https://gitlab.example.com/api/v4/projects/7/terraform/state/prod",
		"https://u:p@h.example/s?access_token=t&x=1&x=2":                    "https://h.example/s?access_token=REDACTED&x=REDACTED&x=REDACTED",
		"https://h.example/s?tok3n":                                         "https://h.example/s?tok3n=REDACTED",
		"https://h.example/s#frag-secret":                                   "https://h.example/s",
		"http://u:p@bad host/s?t=secret":                                    "http://bad host/s",
		"u:p@host/s?token":                                                  "?://host/s",
	} {
		if got := httpstate.Redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}
