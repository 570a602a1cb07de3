package ssmapi_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go"

	"github.com/kyku/action/internal/provider/aws/awswire"
	"github.com/kyku/action/internal/provider/aws/ssmapi"
)

// serve answers every request with status and body under a non-empty
// base path and reports the target, signing scope and body it was sent.
func serve(t *testing.T, status int, body string) (*ssmapi.Client, *struct{ target, auth, body string }) {
	t.Helper()
	var got struct{ target, auth, body string }
	mux := http.NewServeMux()
	mux.HandleFunc("/base/", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.target, got.auth, got.body = r.Header.Get("X-Amz-Target"), r.Header.Get("Authorization"), string(b)
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c := ssmapi.New(awswire.Client{
		HTTP: srv.Client(), Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		Region: "eu-west-1", Endpoint: srv.URL + "/base/",
	})
	return c, &got
}

func TestGetParameter(t *testing.T) {
	c, got := serve(t, 200, `{"Parameter":{"Name":"/aws/service/debian/amd64/latest","Type":"String","Value":"ami-0123","Version":7,"DataType":"aws:ec2:image"}}`)
	out, err := c.GetParameter(t.Context(), &ssmapi.GetParameterInput{Name: aws.String("/aws/service/debian/amd64/latest")})
	if err != nil {
		t.Fatal(err)
	}
	if v := aws.ToString(out.Parameter.Value); v != "ami-0123" {
		t.Errorf("value %q, want ami-0123", v)
	}
	if got.target != "AmazonSSM.GetParameter" || got.body != `{"Name":"/aws/service/debian/amd64/latest"}` {
		t.Errorf("sent target %q body %s", got.target, got.body)
	}
	const scope = "/eu-west-1/ssm/aws4_request"
	if !strings.Contains(got.auth, scope) {
		t.Errorf("signed as %q, want the scope %s", got.auth, scope)
	}
}

// A parameter AWS does not publish (an image name retired) fails with
// ParameterNotFound, which the provider does not retry.
func TestParameterNotFound(t *testing.T) {
	c, _ := serve(t, 400, `{"__type":"com.amazonaws.ssm#ParameterNotFound","message":"Parameter /aws/service/x not found."}`)
	out, err := c.GetParameter(t.Context(), &ssmapi.GetParameterInput{Name: aws.String("/aws/service/x")})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "ParameterNotFound" || ae.ErrorFault() != smithy.FaultClient {
		t.Fatalf("err = %v, want ParameterNotFound, the caller's fault", err)
	}
	if out != nil {
		t.Errorf("output %+v with the error", out)
	}
}
