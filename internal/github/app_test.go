package github

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/kyku/action/internal/github/githubtest"
)

func rsaKey(t *testing.T) (*rsa.PrivateKey, []byte) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return key, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
}

// TestAppInstallationToken proves ghinstallation itself works against the
// fake: App JWT -> installation token -> API call as the App's bot user.
func TestAppInstallationToken(t *testing.T) {
	ctx := t.Context()
	srv := githubtest.NewServer(t) // real clock: ghinstallation signs with time.Now
	key, pemBytes := rsaKey(t)
	srv.SetApp(42, &key.PublicKey, "kyku[bot]")
	pr := srv.AddPullRequest(repoName, githubtestPR(0, "s"))

	newRepo := func(pemBytes []byte) *Repo {
		tr, err := ghinstallation.New(http.DefaultTransport, 42, 7, pemBytes)
		if err != nil {
			t.Fatal(err)
		}
		tr.BaseURL = strings.TrimSuffix(srv.APIURL(), "/")
		client, err := NewClient(ctx, srv.APIURL(), &http.Client{Transport: tr})
		if err != nil {
			t.Fatal(err)
		}
		return New(client, "acme", "infra")
	}

	repo := newRepo(pemBytes)
	for range 2 {
		if _, err := repo.CreateComment(ctx, pr, "planned"); err != nil {
			t.Fatal(err)
		}
	}
	comments := srv.Comments(repoName, pr)
	if len(comments) != 2 || comments[0].User != "kyku[bot]" {
		t.Errorf("comments = %+v, want two by kyku[bot]", comments)
	}
	tokens := srv.IssuedTokens()
	if len(tokens) != 1 || !strings.HasPrefix(tokens[0], "ghs_inst7_") {
		t.Errorf("issued tokens = %v, want one for installation 7 (reused)", tokens)
	}
	if n := srv.CountRequests("POST", "/app/installations/7/access_tokens"); n != 1 {
		t.Errorf("%d token exchanges, want 1", n)
	}

	t.Run("a JWT signed by another key is refused", func(t *testing.T) {
		_, otherPEM := rsaKey(t)
		srv.ResetRequests()
		_, err := newRepo(otherPEM).CreateComment(ctx, pr, "intruder")
		if err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("err = %v, want a 401", err)
		}
		if len(srv.Comments(repoName, pr)) != 2 {
			t.Error("a comment was created with a forged JWT")
		}
	})

	t.Run("an expired JWT is refused", func(t *testing.T) {
		srv.SetNow(func() time.Time { return time.Now().Add(time.Hour) })
		defer srv.SetNow(time.Now)
		_, err := newRepo(pemBytes).CreateComment(ctx, pr, "late")
		if err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("err = %v, want a 401", err)
		}
	})
}
