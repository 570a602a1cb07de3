package ec2api_test

import (
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
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider/aws/awswire"
	"github.com/kyku/action/internal/provider/aws/ec2api"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// basePath is where the test server mounts EC2: a client that dropped an
// endpoint's path would miss it.
const basePath = "/ec2-base/"

// fakeEC2 answers each request with answer(form) (status, body), and
// records the forms it was sent.
type fakeEC2 struct {
	mu    sync.Mutex
	forms []url.Values
}

func start(t *testing.T, answer func(f url.Values) (int, string)) (*ec2api.Client, *fakeEC2) {
	t.Helper()
	fk := &fakeEC2{}
	mux := http.NewServeMux()
	mux.HandleFunc(basePath, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != basePath {
			http.Error(w, "wrong path "+r.URL.Path, http.StatusNotFound)
			return
		}
		b, _ := io.ReadAll(r.Body)
		f, err := url.ParseQuery(string(b))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fk.mu.Lock()
		fk.forms = append(fk.forms, f)
		fk.mu.Unlock()
		status, body := answer(f)
		w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c := ec2api.New(awswire.Client{
		HTTP:        srv.Client(),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		Region:      "eu-west-1",
		Endpoint:    srv.URL + basePath,
		Now:         func() time.Time { return time.Date(2026, 12, 7, 1, 0, 0, 0, time.UTC) },
	})
	return c, fk
}

// ok answers every action with its own empty answer.
func ok(f url.Values) (int, string) {
	a := f.Get("Action")
	return 200, `<` + a + `Response xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r-1</requestId><return>true</return></` + a + `Response>`
}

func str(s string) *string { return &s }
func i32(n int32) *int32   { return &n }
func boolp(b bool) *bool   { return &b }

// render is a form as sorted key=value lines, as the goldens hold it.
func render(f url.Values) string {
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
	path := filepath.Join("testdata", name+".form")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s: the form differs from %s (-want +got):\n%s", name, path, d)
	}
}

// Every request is the form the Amazon EC2 API Reference gives for its
// action: the goldens hold what is sent, parameter by parameter.
func TestRequestForms(t *testing.T) {
	tags := []ec2api.Tag{{Key: str("Name"), Value: str("demo-web")}, {Key: str("kyku:managed"), Value: str("true")}}
	for _, tc := range []struct {
		name string
		send func(*ec2api.Client) error
	}{
		{"RunInstances", func(c *ec2api.Client) error {
			_, err := c.RunInstances(t.Context(), &ec2api.RunInstancesInput{
				ImageId: str("ami-0123"), InstanceType: "t3.small", MinCount: i32(1), MaxCount: i32(1),
				SubnetId: str("subnet-1"), SecurityGroupIds: []string{"sg-1", "sg-2"}, KeyName: str("demo-key"),
				UserData: str("IyEvYmluL3NoCmVjaG8gaGk="), ClientToken: str("kyku-tok"),
				TagSpecifications: []ec2api.TagSpecification{{ResourceType: ec2api.ResourceTypeInstance, Tags: tags}},
			})
			return err
		}},
		{"AuthorizeSecurityGroupIngress", func(c *ec2api.Client) error {
			_, err := c.AuthorizeSecurityGroupIngress(t.Context(), &ec2api.AuthorizeSecurityGroupIngressInput{
				GroupId: str("sg-1"),
				IpPermissions: []ec2api.IpPermission{
					{IpProtocol: str("tcp"), FromPort: i32(22), ToPort: i32(22), IpRanges: []ec2api.IpRange{{CidrIp: str("10.0.0.0/8")}}},
					{IpProtocol: str("icmp"), FromPort: i32(-1), ToPort: i32(-1), IpRanges: []ec2api.IpRange{{CidrIp: str("0.0.0.0/0")}, {CidrIp: str("192.0.2.0/24")}}},
					{IpProtocol: str("-1"), IpRanges: []ec2api.IpRange{{CidrIp: str("198.51.100.0/24")}}},
				},
			})
			return err
		}},
		{"DescribeInstances", func(c *ec2api.Client) error {
			_, err := c.DescribeInstances(t.Context(), &ec2api.DescribeInstancesInput{
				InstanceIds: []string{"i-1"},
				Filters: []ec2api.Filter{
					{Name: str("tag:Name"), Values: []string{"demo web"}},
					{Name: str("instance-state-name"), Values: []string{"pending", "running"}},
				},
				NextToken: str("tok/+="),
			})
			return err
		}},
		{"DeleteTags", func(c *ec2api.Client) error {
			// A tag without a value goes whatever its value: no Value is sent.
			_, err := c.DeleteTags(t.Context(), &ec2api.DeleteTagsInput{Resources: []string{"i-1"}, Tags: []ec2api.Tag{{Key: str("kyku:resizing")}}})
			return err
		}},
		{"ImportKeyPair", func(c *ec2api.Client) error {
			_, err := c.ImportKeyPair(t.Context(), &ec2api.ImportKeyPairInput{
				KeyName: str("demo-key"), PublicKeyMaterial: []byte("ssh-ed25519 AAAAC3Nz me@host"),
				TagSpecifications: []ec2api.TagSpecification{{ResourceType: ec2api.ResourceTypeKeyPair, Tags: tags[:1]}},
			})
			return err
		}},
		{"DescribeKeyPairs", func(c *ec2api.Client) error {
			_, err := c.DescribeKeyPairs(t.Context(), &ec2api.DescribeKeyPairsInput{KeyPairIds: []string{"key-1"}, IncludePublicKey: boolp(true)})
			return err
		}},
		{"ModifySubnetAttribute", func(c *ec2api.Client) error {
			_, err := c.ModifySubnetAttribute(t.Context(), &ec2api.ModifySubnetAttributeInput{
				SubnetId: str("subnet-1"), MapPublicIpOnLaunch: &ec2api.AttributeBooleanValue{Value: boolp(false)},
			})
			return err
		}},
		{"ModifyInstanceAttribute", func(c *ec2api.Client) error {
			_, err := c.ModifyInstanceAttribute(t.Context(), &ec2api.ModifyInstanceAttributeInput{InstanceId: str("i-1"), Groups: []string{"sg-1", "sg-2"}})
			return err
		}},
		{"CreateSecurityGroup", func(c *ec2api.Client) error {
			_, err := c.CreateSecurityGroup(t.Context(), &ec2api.CreateSecurityGroupInput{
				GroupName: str("demo-web"), Description: str("Kyku demo/web"), VpcId: str("vpc-1"),
				TagSpecifications: []ec2api.TagSpecification{{ResourceType: ec2api.ResourceTypeSecurityGroup, Tags: tags}},
			})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, fk := start(t, ok)
			if err := tc.send(c); err != nil {
				t.Fatal(err)
			}
			if len(fk.forms) != 1 {
				t.Fatalf("%d requests, want 1", len(fk.forms))
			}
			golden(t, tc.name, render(fk.forms[0]))
		})
	}
}
