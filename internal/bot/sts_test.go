package bot_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// fakeSTS is an httptest STS endpoint speaking the query protocol the real
// aws-sdk-go-v2 STS client uses: it answers AssumeRole with the keys it
// was given and records each call.
type fakeSTS struct {
	srv                  *httptest.Server
	access, secret, sess string

	mu    sync.Mutex
	calls []url.Values
}

func newFakeSTS(t *testing.T, access, secret string) *fakeSTS {
	f := &fakeSTS{access: access, secret: secret, sess: "session-token"}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeSTS) serve(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.Form.Get("Action") != "AssumeRole" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	// The bot signs with its own credentials (SigV4).
	if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 Credential=bot-key/") {
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `<ErrorResponse><Error><Type>Sender</Type><Code>InvalidClientTokenId</Code><Message>unsigned</Message></Error></ErrorResponse>`)
		return
	}
	f.mu.Lock()
	f.calls = append(f.calls, r.Form)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/xml")
	fmt.Fprintf(w, `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleResult>
    <Credentials>
      <AccessKeyId>%s</AccessKeyId>
      <SecretAccessKey>%s</SecretAccessKey>
      <SessionToken>%s</SessionToken>
      <Expiration>2099-01-01T00:00:00Z</Expiration>
    </Credentials>
    <AssumedRoleUser>
      <Arn>%s/%s</Arn>
      <AssumedRoleId>AROA000000000000:%s</AssumedRoleId>
    </AssumedRoleUser>
  </AssumeRoleResult>
  <ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata>
</AssumeRoleResponse>`, f.access, f.secret, f.sess, r.Form.Get("RoleArn"), r.Form.Get("RoleSessionName"), r.Form.Get("RoleSessionName"))
}

// client is the real STS client, pointed at the fake, signing as the bot.
func (f *fakeSTS) client(t *testing.T) *sts.Client {
	return sts.New(sts.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(f.srv.URL),
		Credentials: credentials.NewStaticCredentialsProvider("bot-key", "bot-secret", ""),
	})
}

// assumed lists the (role, session name) of each AssumeRole call.
func (f *fakeSTS) assumed() [][2]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out [][2]string
	for _, c := range f.calls {
		out = append(out, [2]string{c.Get("RoleArn"), c.Get("RoleSessionName")})
	}
	return out
}
