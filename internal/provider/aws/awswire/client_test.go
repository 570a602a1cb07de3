package awswire_test

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

var signedAt = time.Date(2026, 12, 7, 1, 2, 3, 0, time.UTC)

func client(url, service string) *awswire.Client {
	return &awswire.Client{
		HTTP:         http.DefaultClient,
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "session-token"),
		Region:       "eu-west-1",
		Endpoint:     url,
		Service:      service,
		Version:      "2016-11-15",
		TargetPrefix: "AmazonSSM",
		Now:          func() time.Time { return signedAt },
	}
}

type vpcs struct {
	XMLName xml.Name `xml:"DescribeVpcsResponse"`
	IDs     []string `xml:"vpcSet>item>vpcId"`
}

func TestQuerySendsASignedForm(t *testing.T) {
	var got struct {
		method, contentType, auth, token, date string
		form                                   url.Values
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.method, got.contentType = r.Method, r.Header.Get("Content-Type")
		got.auth, got.token, got.date = r.Header.Get("Authorization"), r.Header.Get("X-Amz-Security-Token"), r.Header.Get("X-Amz-Date")
		got.form, _ = url.ParseQuery(string(b))
		_, _ = io.WriteString(w, `<DescribeVpcsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><vpcSet><item><vpcId>vpc-1</vpcId></item><item><vpcId>vpc-2</vpcId></item></vpcSet></DescribeVpcsResponse>`)
	}))
	defer srv.Close()

	var out vpcs
	err := client(srv.URL, "ec2").Query(t.Context(), "DescribeVpcs", url.Values{"Filter.1.Name": {"tag:kyku"}, "Filter.1.Value.1": {"a b&c"}}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"vpc-1", "vpc-2"}, out.IDs); diff != "" {
		t.Errorf("decoded answer (-want +got):\n%s", diff)
	}
	wantForm := url.Values{"Action": {"DescribeVpcs"}, "Version": {"2016-11-15"}, "Filter.1.Name": {"tag:kyku"}, "Filter.1.Value.1": {"a b&c"}}
	if diff := cmp.Diff(wantForm, got.form); diff != "" {
		t.Errorf("form (-want +got):\n%s", diff)
	}
	if got.method != http.MethodPost || !strings.HasPrefix(got.contentType, "application/x-www-form-urlencoded") {
		t.Errorf("sent %s %q, want a form POST", got.method, got.contentType)
	}
	if want := "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261207/eu-west-1/ec2/aws4_request"; !strings.HasPrefix(got.auth, want) {
		t.Errorf("Authorization = %q, want a SigV4 signature starting %q", got.auth, want)
	}
	if got.token != "session-token" || got.date != "20261207T010203Z" {
		t.Errorf("session token %q, date %q", got.token, got.date)
	}
}

func TestErrorsKeepAWSCodes(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		status     int
		json       bool
		code, msg  string
	}{
		{name: "ec2", status: 400, code: "InvalidVpcID.NotFound", msg: "The vpc ID 'vpc-9' does not exist",
			body: `<Response><Errors><Error><Code>InvalidVpcID.NotFound</Code><Message>The vpc ID 'vpc-9' does not exist</Message></Error></Errors><RequestID>r-1</RequestID></Response>`},
		{name: "query", status: 404, code: "DBInstanceNotFound", msg: "DBInstance db1 not found.",
			body: `<ErrorResponse xmlns="http://rds.amazonaws.com/doc/2014-10-31/"><Error><Type>Sender</Type><Code>DBInstanceNotFound</Code><Message>DBInstance db1 not found.</Message></Error><RequestId>r-2</RequestId></ErrorResponse>`},
		{name: "throttled 503", status: 503, code: "RequestLimitExceeded", msg: "Request limit exceeded.",
			body: `<Response><Errors><Error><Code>RequestLimitExceeded</Code><Message>Request limit exceeded.</Message></Error></Errors></Response>`},
		{name: "json", status: 400, json: true, code: "ParameterNotFound", msg: "no such parameter",
			body: `{"__type":"com.amazonaws.ssm#ParameterNotFound","message":"no such parameter"}`},
		{name: "a proxy's page", status: 502, code: "HTTP502", msg: "<html>bad gateway</html>", body: `<html>bad gateway</html>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			c := client(srv.URL, "ec2")
			var err error
			if tc.json {
				err = c.JSON(t.Context(), "GetParameter", map[string]string{"Name": "x"}, nil)
			} else {
				err = c.Query(t.Context(), "DescribeVpcs", nil, nil)
			}
			var ae smithy.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, want a smithy.APIError", err)
			}
			if ae.ErrorCode() != tc.code || ae.ErrorMessage() != tc.msg {
				t.Errorf("code %q message %q, want %q %q", ae.ErrorCode(), ae.ErrorMessage(), tc.code, tc.msg)
			}
			var hs interface{ HTTPStatusCode() int }
			if !errors.As(err, &hs) || hs.HTTPStatusCode() != tc.status {
				t.Errorf("status not kept: %v", err)
			}
			if wantFault := tc.status >= 500; (ae.ErrorFault() == smithy.FaultServer) != wantFault {
				t.Errorf("fault %v for status %d", ae.ErrorFault(), tc.status)
			}
		})
	}
}

func TestJSONNamesItsOperation(t *testing.T) {
	var target, ctype, body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		target, ctype, body = r.Header.Get("X-Amz-Target"), r.Header.Get("Content-Type"), string(b)
		_, _ = io.WriteString(w, `{"Parameter":{"Value":"ami-123"}}`)
	}))
	defer srv.Close()
	var out struct{ Parameter struct{ Value string } }
	if err := client(srv.URL, "ssm").JSON(t.Context(), "GetParameter", map[string]string{"Name": "/aws/ami"}, &out); err != nil {
		t.Fatal(err)
	}
	if target != "AmazonSSM.GetParameter" || ctype != "application/x-amz-json-1.1" || body != `{"Name":"/aws/ami"}` {
		t.Errorf("sent target %q type %q body %s", target, ctype, body)
	}
	if out.Parameter.Value != "ami-123" {
		t.Errorf("decoded %q", out.Parameter.Value)
	}
}

func TestNetworkFailuresAreSendErrors(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close() // nothing listens there any more
	err := client(addr, "ec2").Query(t.Context(), "DescribeVpcs", nil, nil)
	var send *smithyhttp.RequestSendError
	if !errors.As(err, &send) {
		t.Fatalf("err = %v, want a *smithyhttp.RequestSendError", err)
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		t.Errorf("a refused connection reads as an answer from AWS: %v", err)
	}
}

func TestCutAnswerIsUnexpectedEOF(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		_, _ = io.WriteString(w, "<DescribeVpcsResponse>")
	}))
	defer srv.Close()
	err := client(srv.URL, "ec2").Query(t.Context(), "DescribeVpcs", nil, &vpcs{})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("err = %v, want io.ErrUnexpectedEOF", err)
	}
}

func TestCanceledIsTheContextsError(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := client("http://127.0.0.1:1", "ec2").Query(ctx, "DescribeVpcs", nil, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	var send *smithyhttp.RequestSendError
	if errors.As(err, &send) {
		t.Errorf("the caller's own cancel reads as a network failure: %v", err)
	}
}

func TestDefaultEndpoint(t *testing.T) {
	for region, want := range map[string]string{
		"eu-west-1":  "https://ec2.eu-west-1.amazonaws.com",
		"cn-north-1": "https://ec2.cn-north-1.amazonaws.com.cn",
	} {
		if got := awswire.DefaultEndpoint("ec2", region); got != want {
			t.Errorf("DefaultEndpoint(ec2, %s) = %s, want %s", region, got, want)
		}
	}
}

var _ aws.HTTPClient = http.DefaultClient

func TestAddList(t *testing.T) {
	p := url.Values{}
	awswire.AddList(p, "Subnets.member", []string{"subnet-1", "subnet-2"})
	want := url.Values{"Subnets.member.1": {"subnet-1"}, "Subnets.member.2": {"subnet-2"}}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestQueryAnswerIsTheActionsOwn: an answer of 200 whose root is not the
// action's (a proxy's page, another action's answer) fails the call
// rather than reading as an empty listing; the action's own decodes.
func TestQueryAnswerIsTheActionsOwn(t *testing.T) {
	// No XMLName: the root is QueryAnswer's to check, not the decoder's.
	type vpcIDs struct {
		IDs []string `xml:"vpcSet>item>vpcId"`
	}
	for _, tc := range []struct {
		name, body string
		ok         bool
	}{
		{"its own", `<DescribeVpcsResponse><vpcSet><item><vpcId>vpc-1</vpcId></item></vpcSet></DescribeVpcsResponse>`, true},
		{"another action's", `<DescribeSubnetsResponse><subnetSet/></DescribeSubnetsResponse>`, false},
		{"a proxy's page", `<html><body>sign in</body></html>`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			out, err := awswire.QueryAnswer[vpcIDs](t.Context(), client(srv.URL, "ec2"), "DescribeVpcs", nil)
			if tc.ok {
				if err != nil || len(out.IDs) != 1 {
					t.Fatalf("QueryAnswer = %+v, %v; want vpc-1", out, err)
				}
				return
			}
			if err == nil || out != nil {
				t.Fatalf("QueryAnswer = %+v, %v; want an error and no answer", out, err)
			}
		})
	}
}

// TestQueryWithoutOutputChecksTheAnswer: a call whose output is not read
// (a Delete) still fails on an answer of 200 that is not its own: a
// proxy's page is no deletion.
func TestQueryWithoutOutputChecksTheAnswer(t *testing.T) {
	answering := func(body string) *awswire.Client {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, body)
		}))
		t.Cleanup(srv.Close)
		return client(srv.URL, "elasticloadbalancing")
	}
	if err := answering(`<html><body>sign in</body></html>`).Query(t.Context(), "DeleteLoadBalancer", nil, nil); err == nil {
		t.Error("a proxy's page read as DeleteLoadBalancer's answer")
	}
	own := `<DeleteLoadBalancerResponse><DeleteLoadBalancerResult/></DeleteLoadBalancerResponse>`
	if err := answering(own).Query(t.Context(), "DeleteLoadBalancer", nil, nil); err != nil {
		t.Errorf("its own answer: %v", err)
	}
}
