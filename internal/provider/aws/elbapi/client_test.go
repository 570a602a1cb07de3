package elbapi_test

import (
	"errors"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider/aws/awswire"
	"github.com/kyku/action/internal/provider/aws/elbapi"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// fake answers each request with the next of answers (status and body)
// under a non-empty base path, and keeps the forms it was sent.
type fake struct {
	mu      sync.Mutex
	forms   []url.Values
	answers []answer
}

type answer struct {
	status int
	body   string
}

func serve(t *testing.T, answers ...answer) (*elbapi.Client, *fake) {
	t.Helper()
	f := &fake{answers: answers}
	mux := http.NewServeMux()
	mux.HandleFunc("/base/", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(b))
		f.mu.Lock()
		defer f.mu.Unlock()
		f.forms = append(f.forms, form)
		if len(f.answers) == 0 {
			http.Error(w, "no answer left", http.StatusTeapot)
			return
		}
		a := f.answers[0]
		f.answers = f.answers[1:]
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.body)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c := elbapi.New(awswire.Client{
		HTTP: srv.Client(), Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		Region: "eu-west-1", Endpoint: srv.URL + "/base/",
	})
	return c, f
}

func ok(action, result string) answer {
	return answer{200, `<` + action + `Response xmlns="http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/"><` + action + `Result>` + result +
		`</` + action + `Result><ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata></` + action + `Response>`}
}

// formText is a form one key=value a line, sorted.
func formText(f url.Values) string {
	var lines []string
	for k, vs := range f {
		for _, v := range vs {
			lines = append(lines, k+"="+v)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

// CreateLoadBalancer's form as ELBv2 reads it (Subnets.member.N,
// Tags.member.N.Key), and the load balancer decoded from its answer.
func TestCreateLoadBalancer(t *testing.T) {
	c, f := serve(t, ok("CreateLoadBalancer", `<LoadBalancers><member><LoadBalancerArn>arn:lb</LoadBalancerArn>`+
		`<DNSName>demo-lb-1.eu-west-1.elb.amazonaws.com</DNSName><VpcId>vpc-1</VpcId><Type>application</Type>`+
		`<SecurityGroups><member>sg-1</member><member>sg-2</member></SecurityGroups></member></LoadBalancers>`))
	out, err := c.CreateLoadBalancer(t.Context(), &elbapi.CreateLoadBalancerInput{
		Name: aws.String("demo-lb"), Subnets: []string{"subnet-1", "subnet-2"}, SecurityGroups: []string{"sg-1", "sg-2"},
		Scheme: elbapi.LoadBalancerSchemeEnumInternetFacing, Type: elbapi.LoadBalancerTypeEnumApplication,
		Tags: []elbapi.Tag{{Key: aws.String("Name"), Value: aws.String("demo/lb")}, {Key: aws.String("kyku:securityGroups"), Value: aws.String("managed")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "create-load-balancer.form", formText(f.forms[0]))
	want := []elbapi.LoadBalancer{{LoadBalancerArn: aws.String("arn:lb"), DNSName: aws.String("demo-lb-1.eu-west-1.elb.amazonaws.com"),
		VpcId: aws.String("vpc-1"), SecurityGroups: []string{"sg-1", "sg-2"}}}
	if diff := cmp.Diff(want, out.LoadBalancers); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
}

// A listener's form carries its action and certificate as
// DefaultActions.member.1.Type and Certificates.member.1.CertificateArn;
// a listener decodes with both.
func TestListener(t *testing.T) {
	l := `<member><ListenerArn>arn:l</ListenerArn><Port>443</Port><Protocol>HTTPS</Protocol>` +
		`<DefaultActions><member><Type>forward</Type><TargetGroupArn>arn:tg</TargetGroupArn></member></DefaultActions>` +
		`<Certificates><member><CertificateArn>arn:aws:acm:c</CertificateArn></member></Certificates></member>`
	c, f := serve(t, ok("CreateListener", `<Listeners>`+l+`</Listeners>`), ok("DescribeListeners", `<Listeners>`+l+`</Listeners>`))
	err := c.CreateListener(t.Context(), &elbapi.CreateListenerInput{
		LoadBalancerArn: aws.String("arn:lb"), Port: aws.Int32(443), Protocol: elbapi.ProtocolEnumHttps,
		DefaultActions: []elbapi.Action{{Type: elbapi.ActionTypeEnumForward, TargetGroupArn: aws.String("arn:tg")}},
		Certificates:   []elbapi.Certificate{{CertificateArn: aws.String("arn:aws:acm:c")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	wantForm := url.Values{"Action": {"CreateListener"}, "Version": {"2015-12-01"}, "LoadBalancerArn": {"arn:lb"}, "Port": {"443"}, "Protocol": {"HTTPS"},
		"DefaultActions.member.1.Type": {"forward"}, "DefaultActions.member.1.TargetGroupArn": {"arn:tg"},
		"Certificates.member.1.CertificateArn": {"arn:aws:acm:c"}}
	if diff := cmp.Diff(wantForm, f.forms[0]); diff != "" {
		t.Errorf("form (-want +got):\n%s", diff)
	}
	out, err := c.DescribeListeners(t.Context(), &elbapi.DescribeListenersInput{LoadBalancerArn: aws.String("arn:lb")})
	if err != nil {
		t.Fatal(err)
	}
	want := []elbapi.Listener{{ListenerArn: aws.String("arn:l"), Port: aws.Int32(443), Protocol: elbapi.ProtocolEnumHttps,
		DefaultActions: []elbapi.Action{{Type: elbapi.ActionTypeEnumForward, TargetGroupArn: aws.String("arn:tg")}},
		Certificates:   []elbapi.Certificate{{CertificateArn: aws.String("arn:aws:acm:c")}}}}
	if diff := cmp.Diff(want, out.Listeners); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
}

// Pages follow NextMarker, an empty page with a NextMarker included: each
// request sends as Marker what the previous answer gave.
func TestDescribeTargetGroupsPages(t *testing.T) {
	tg := func(arn string) string {
		return `<member><TargetGroupArn>` + arn + `</TargetGroupArn><Port>80</Port><Protocol>HTTP</Protocol></member>`
	}
	c, f := serve(t,
		ok("DescribeTargetGroups", `<TargetGroups>`+tg("arn:tg1")+`</TargetGroups><NextMarker>m1</NextMarker>`),
		ok("DescribeTargetGroups", `<TargetGroups/><NextMarker>m2</NextMarker>`),
		ok("DescribeTargetGroups", `<TargetGroups>`+tg("arn:tg2")+`</TargetGroups>`),
	)
	var got []elbapi.TargetGroup
	var markers []string
	var marker *string
	for range 3 {
		out, err := c.DescribeTargetGroups(t.Context(), &elbapi.DescribeTargetGroupsInput{PageSize: aws.Int32(400), Marker: marker})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, out.TargetGroups...)
		marker = out.NextMarker
		markers = append(markers, aws.ToString(out.NextMarker))
	}
	want := []elbapi.TargetGroup{
		{TargetGroupArn: aws.String("arn:tg1"), Port: aws.Int32(80), Protocol: elbapi.ProtocolEnumHttp},
		{TargetGroupArn: aws.String("arn:tg2"), Port: aws.Int32(80), Protocol: elbapi.ProtocolEnumHttp},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"m1", "m2", ""}, markers); diff != "" {
		t.Errorf("markers (-want +got):\n%s", diff)
	}
	var sent []string
	for _, form := range f.forms {
		sent = append(sent, form.Get("Marker")+" "+form.Get("PageSize"))
	}
	if diff := cmp.Diff([]string{" 400", "m1 400", "m2 400"}, sent); diff != "" {
		t.Errorf("markers and page sizes sent (-want +got):\n%s", diff)
	}
}

// Draining targets decode with their state; the provider leaves them out.
func TestDescribeTargetHealth(t *testing.T) {
	c, _ := serve(t, ok("DescribeTargetHealth", `<TargetHealthDescriptions>`+
		`<member><Target><Id>i-1</Id><Port>80</Port></Target><TargetHealth><State>healthy</State></TargetHealth></member>`+
		`<member><Target><Id>i-2</Id><Port>80</Port></Target><TargetHealth><State>draining</State><Reason>Target.DeregistrationInProgress</Reason></TargetHealth></member>`+
		`</TargetHealthDescriptions>`))
	out, err := c.DescribeTargetHealth(t.Context(), &elbapi.DescribeTargetHealthInput{TargetGroupArn: aws.String("arn:tg")})
	if err != nil {
		t.Fatal(err)
	}
	want := []elbapi.TargetHealthDescription{
		{Target: &elbapi.TargetDescription{Id: aws.String("i-1")}, TargetHealth: &elbapi.TargetHealth{State: "healthy"}},
		{Target: &elbapi.TargetDescription{Id: aws.String("i-2")}, TargetHealth: &elbapi.TargetHealth{State: elbapi.TargetHealthStateEnumDraining}},
	}
	if diff := cmp.Diff(want, out.TargetHealthDescriptions); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
}

// SetSecurityGroups with an empty list sends "SecurityGroups=" (none
// left, as the SDK sends it), not nothing.
func TestSetNoSecurityGroups(t *testing.T) {
	c, f := serve(t, ok("SetSecurityGroups", `<SecurityGroupIds/>`))
	if err := c.SetSecurityGroups(t.Context(), &elbapi.SetSecurityGroupsInput{LoadBalancerArn: aws.String("arn:lb"), SecurityGroups: []string{}}); err != nil {
		t.Fatal(err)
	}
	if v, sent := f.forms[0]["SecurityGroups"]; !sent || v[0] != "" {
		t.Errorf("form %v, want SecurityGroups=", f.forms[0])
	}
}

// An error answer is a smithy.APIError with ELBv2's code and the HTTP
// status, and no output.
func TestErrorAnswer(t *testing.T) {
	c, _ := serve(t, answer{400, `<ErrorResponse xmlns="http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/"><Error><Type>Sender</Type>` +
		`<Code>TargetGroupNotFound</Code><Message>One or more target groups not found</Message></Error><RequestId>r-1</RequestId></ErrorResponse>`})
	out, err := c.DescribeTargetGroups(t.Context(), &elbapi.DescribeTargetGroupsInput{Names: []string{"demo-tg"}})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "TargetGroupNotFound" {
		t.Fatalf("err = %v, want TargetGroupNotFound", err)
	}
	var hs interface{ HTTPStatusCode() int }
	if !errors.As(err, &hs) || hs.HTTPStatusCode() != 400 {
		t.Errorf("status not kept: %v", err)
	}
	if out != nil {
		t.Errorf("output %+v with the error", out)
	}
}

// Every paginated Describe sends the Marker it is given and reads its
// page's items and NextMarker.
func TestEveryDescribePages(t *testing.T) {
	for _, tc := range []struct {
		action, items string
		call          func(c *elbapi.Client, marker *string) (n int, next *string, err error)
	}{
		{"DescribeTargetGroups", `<TargetGroups><member><TargetGroupArn>a</TargetGroupArn></member></TargetGroups>`,
			func(c *elbapi.Client, m *string) (int, *string, error) {
				out, err := c.DescribeTargetGroups(t.Context(), &elbapi.DescribeTargetGroupsInput{Marker: m})
				if err != nil {
					return 0, nil, err
				}
				return len(out.TargetGroups), out.NextMarker, nil
			}},
		{"DescribeLoadBalancers", `<LoadBalancers><member><LoadBalancerArn>a</LoadBalancerArn></member></LoadBalancers>`,
			func(c *elbapi.Client, m *string) (int, *string, error) {
				out, err := c.DescribeLoadBalancers(t.Context(), &elbapi.DescribeLoadBalancersInput{Marker: m})
				if err != nil {
					return 0, nil, err
				}
				return len(out.LoadBalancers), out.NextMarker, nil
			}},
		{"DescribeListeners", `<Listeners><member><ListenerArn>a</ListenerArn></member></Listeners>`,
			func(c *elbapi.Client, m *string) (int, *string, error) {
				out, err := c.DescribeListeners(t.Context(), &elbapi.DescribeListenersInput{LoadBalancerArn: aws.String("lb"), Marker: m})
				if err != nil {
					return 0, nil, err
				}
				return len(out.Listeners), out.NextMarker, nil
			}},
	} {
		t.Run(tc.action, func(t *testing.T) {
			c, f := serve(t, ok(tc.action, tc.items+`<NextMarker>m1</NextMarker>`))
			n, next, err := tc.call(c, aws.String("m0"))
			if err != nil {
				t.Fatal(err)
			}
			if n != 1 || aws.ToString(next) != "m1" || f.forms[0].Get("Marker") != "m0" {
				t.Errorf("%d items, NextMarker %q, sent Marker %q; want 1, m1, m0", n, aws.ToString(next), f.forms[0].Get("Marker"))
			}
		})
	}
}
