package rdsapi_test

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
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider/aws/awswire"
	"github.com/kyku/action/internal/provider/aws/rdsapi"
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

func serve(t *testing.T, answers ...answer) (*rdsapi.Client, *fake) {
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
	c := rdsapi.New(awswire.Client{
		HTTP: srv.Client(), Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		Region: "eu-west-1", Endpoint: srv.URL + "/base/",
	})
	return c, f
}

func ok(action, result string) answer {
	return answer{200, `<` + action + `Response xmlns="http://rds.amazonaws.com/doc/2014-10-31/"><` + action + `Result>` + result +
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

// CreateDBInstance's form as RDS reads it: lists named after their members
// (VpcSecurityGroupIds.VpcSecurityGroupId.N, Tags.Tag.N.Key), booleans
// in lower case, no password, nothing unset.
func TestCreateDBInstanceForm(t *testing.T) {
	c, f := serve(t, ok("CreateDBInstance", `<DBInstance><DBInstanceIdentifier>demo-db</DBInstanceIdentifier></DBInstance>`))
	err := c.CreateDBInstance(t.Context(), &rdsapi.CreateDBInstanceInput{
		DBInstanceIdentifier: aws.String("demo-db"), DBInstanceClass: aws.String("db.t3.small"),
		Engine: aws.String("postgres"), EngineVersion: aws.String("16"), AllocatedStorage: aws.Int32(20),
		DBSubnetGroupName: aws.String("demo-db"), MasterUsername: aws.String("kyku"), ManageMasterUserPassword: aws.Bool(true),
		PubliclyAccessible: aws.Bool(false), VpcSecurityGroupIds: []string{"sg-1", "sg-2"},
		Tags: []rdsapi.Tag{{Key: aws.String("Name"), Value: aws.String("demo/db")}, {Key: aws.String("kyku:prefix"), Value: aws.String("demo")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "create-db-instance.form", formText(f.forms[0]))
}

// A list left nil is not sent; an empty one is sent as "Name=" (the
// SDK's way to say none): ModifyDBInstance with no security groups.
func TestEmptyListIsSentNilIsNot(t *testing.T) {
	c, f := serve(t, ok("ModifyDBInstance", ""), ok("ModifyDBInstance", ""))
	for _, groups := range [][]string{nil, {}} {
		if err := c.ModifyDBInstance(t.Context(), &rdsapi.ModifyDBInstanceInput{DBInstanceIdentifier: aws.String("db"), VpcSecurityGroupIds: groups}); err != nil {
			t.Fatal(err)
		}
	}
	if _, sent := f.forms[0]["VpcSecurityGroupIds"]; sent {
		t.Errorf("a nil list was sent: %v", f.forms[0])
	}
	if v, sent := f.forms[1]["VpcSecurityGroupIds"]; !sent || v[0] != "" {
		t.Errorf("an empty list was not sent as VpcSecurityGroupIds=: %v", f.forms[1])
	}
}

// DescribeDBInstances reads every field Kyku uses, nested ones too, and
// the filter goes as Filters.Filter.N.Values.Value.M.
func TestDescribeDBInstancesDecodes(t *testing.T) {
	c, f := serve(t, ok("DescribeDBInstances", `<DBInstances><DBInstance>
<DBInstanceIdentifier>demo-db</DBInstanceIdentifier><DBInstanceArn>arn:aws:rds:eu-west-1:1:db:demo-db</DBInstanceArn>
<DBInstanceClass>db.t3.small</DBInstanceClass><DBInstanceStatus>available</DBInstanceStatus><Engine>postgres</Engine>
<EngineVersion>16.4</EngineVersion><AllocatedStorage>20</AllocatedStorage>
<DBSubnetGroup><DBSubnetGroupName>demo-db</DBSubnetGroupName><VpcId>vpc-1</VpcId>
<Subnets><Subnet><SubnetIdentifier>subnet-1</SubnetIdentifier></Subnet><Subnet><SubnetIdentifier>subnet-2</SubnetIdentifier></Subnet></Subnets></DBSubnetGroup>
<VpcSecurityGroups><VpcSecurityGroupMembership><VpcSecurityGroupId>sg-1</VpcSecurityGroupId><Status>active</Status></VpcSecurityGroupMembership></VpcSecurityGroups>
<TagList><Tag><Key>Name</Key><Value>demo/db</Value></Tag></TagList>
<Endpoint><Address>demo-db.abc.rds.amazonaws.com</Address><Port>5432</Port></Endpoint>
<MasterUserSecret><SecretArn>arn:aws:secretsmanager:eu-west-1:1:secret:rds</SecretArn></MasterUserSecret>
<PendingModifiedValues><AllocatedStorage>40</AllocatedStorage><MultiAZ>false</MultiAZ></PendingModifiedValues>
</DBInstance></DBInstances>`))
	out, err := c.DescribeDBInstances(t.Context(), &rdsapi.DescribeDBInstancesInput{
		Filters: []rdsapi.Filter{{Name: aws.String("db-instance-id"), Values: []string{"a", "b"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []rdsapi.DBInstance{{
		DBInstanceIdentifier: aws.String("demo-db"), DBInstanceArn: aws.String("arn:aws:rds:eu-west-1:1:db:demo-db"),
		DBInstanceClass: aws.String("db.t3.small"), DBInstanceStatus: aws.String("available"), Engine: aws.String("postgres"),
		EngineVersion: aws.String("16.4"), AllocatedStorage: aws.Int32(20),
		DBSubnetGroup: &rdsapi.DBSubnetGroup{DBSubnetGroupName: aws.String("demo-db"), VpcId: aws.String("vpc-1"),
			Subnets: []rdsapi.Subnet{{SubnetIdentifier: aws.String("subnet-1")}, {SubnetIdentifier: aws.String("subnet-2")}}},
		VpcSecurityGroups:     []rdsapi.VpcSecurityGroupMembership{{VpcSecurityGroupId: aws.String("sg-1")}},
		TagList:               []rdsapi.Tag{{Key: aws.String("Name"), Value: aws.String("demo/db")}},
		Endpoint:              &rdsapi.Endpoint{Address: aws.String("demo-db.abc.rds.amazonaws.com"), Port: aws.Int32(5432)},
		MasterUserSecret:      &rdsapi.MasterUserSecret{SecretArn: aws.String("arn:aws:secretsmanager:eu-west-1:1:secret:rds")},
		PendingModifiedValues: &rdsapi.PendingModifiedValues{AllocatedStorage: aws.Int32(40), MultiAZ: aws.Bool(false)},
	}}
	if diff := cmp.Diff(want, out.DBInstances); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
	if out.Marker != nil {
		t.Errorf("Marker = %q on the last page", *out.Marker)
	}
	wantForm := url.Values{"Action": {"DescribeDBInstances"}, "Version": {"2014-10-31"}, "Filters.Filter.1.Name": {"db-instance-id"},
		"Filters.Filter.1.Values.Value.1": {"a"}, "Filters.Filter.1.Values.Value.2": {"b"}}
	if diff := cmp.Diff(wantForm, f.forms[0]); diff != "" {
		t.Errorf("form (-want +got):\n%s", diff)
	}
}

// Pages follow Marker, an empty page with a Marker included: each
// request sends the Marker the previous answer gave.
func TestDescribeEventsPages(t *testing.T) {
	event := func(msg, date string) string {
		return `<Event><SourceIdentifier>db</SourceIdentifier><Message>` + msg + `</Message><Date>` + date + `</Date></Event>`
	}
	c, f := serve(t,
		ok("DescribeEvents", `<Events>`+event("Applying modification to allocated storage", "2026-12-07T01:02:03.456Z")+`</Events><Marker>m1</Marker>`),
		ok("DescribeEvents", `<Events/><Marker>m2</Marker>`),
		ok("DescribeEvents", `<Events>`+event("Finished applying modification to allocated storage", "2026-12-07T02:00:00Z")+`</Events>`),
	)
	start, end := time.Date(2026, 12, 6, 20, 0, 0, 0, time.UTC), time.Date(2026, 12, 7, 2, 30, 0, 500e6, time.UTC)
	var msgs, dates, markers []string
	var marker *string
	for range 3 {
		out, err := c.DescribeEvents(t.Context(), &rdsapi.DescribeEventsInput{
			SourceType: rdsapi.SourceTypeDbInstance, SourceIdentifier: aws.String("db"), StartTime: &start, EndTime: &end, Marker: marker,
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range out.Events {
			msgs, dates = append(msgs, aws.ToString(e.Message)), append(dates, e.Date.Format(time.RFC3339Nano))
		}
		marker = out.Marker
		markers = append(markers, aws.ToString(out.Marker))
	}
	if diff := cmp.Diff([]string{"m1", "m2", ""}, markers); diff != "" {
		t.Errorf("markers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Applying modification to allocated storage", "Finished applying modification to allocated storage"}, msgs); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"2026-12-07T01:02:03.456Z", "2026-12-07T02:00:00Z"}, dates); diff != "" {
		t.Errorf("dates (-want +got):\n%s", diff)
	}
	var sent []string
	for _, form := range f.forms {
		sent = append(sent, form.Get("Marker"))
	}
	if diff := cmp.Diff([]string{"", "m1", "m2"}, sent); diff != "" {
		t.Errorf("markers sent (-want +got):\n%s", diff)
	}
	first := f.forms[0]
	if first.Get("StartTime") != "2026-12-06T20:00:00Z" || first.Get("EndTime") != "2026-12-07T02:30:00.5Z" || first.Get("SourceType") != "db-instance" {
		t.Errorf("times and source sent as %q, %q, %q", first.Get("StartTime"), first.Get("EndTime"), first.Get("SourceType"))
	}
}

// An error answer is a smithy.APIError with RDS's code and the HTTP
// status, and no output.
func TestErrorAnswer(t *testing.T) {
	c, _ := serve(t, answer{404, `<ErrorResponse xmlns="http://rds.amazonaws.com/doc/2014-10-31/"><Error><Type>Sender</Type>` +
		`<Code>DBInstanceNotFound</Code><Message>DBInstance demo-db not found.</Message></Error><RequestId>r-1</RequestId></ErrorResponse>`})
	out, err := c.DescribeDBInstances(t.Context(), &rdsapi.DescribeDBInstancesInput{DBInstanceIdentifier: aws.String("demo-db")})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "DBInstanceNotFound" {
		t.Fatalf("err = %v, want DBInstanceNotFound", err)
	}
	var hs interface{ HTTPStatusCode() int }
	if !errors.As(err, &hs) || hs.HTTPStatusCode() != 404 {
		t.Errorf("status not kept: %v", err)
	}
	if out != nil {
		t.Errorf("output %+v with the error", out)
	}
}

// Every paginated Describe sends the Marker it is given and reads its
// page's items and Marker.
func TestEveryDescribePages(t *testing.T) {
	for _, tc := range []struct {
		action, items string
		call          func(c *rdsapi.Client, marker *string) (n int, next *string, err error)
	}{
		{"DescribeDBInstances", `<DBInstances><DBInstance><DBInstanceIdentifier>a</DBInstanceIdentifier></DBInstance></DBInstances>`,
			func(c *rdsapi.Client, m *string) (int, *string, error) {
				out, err := c.DescribeDBInstances(t.Context(), &rdsapi.DescribeDBInstancesInput{Marker: m})
				if err != nil {
					return 0, nil, err
				}
				return len(out.DBInstances), out.Marker, nil
			}},
		{"DescribeDBSubnetGroups", `<DBSubnetGroups><DBSubnetGroup><DBSubnetGroupName>a</DBSubnetGroupName></DBSubnetGroup></DBSubnetGroups>`,
			func(c *rdsapi.Client, m *string) (int, *string, error) {
				out, err := c.DescribeDBSubnetGroups(t.Context(), &rdsapi.DescribeDBSubnetGroupsInput{DBSubnetGroupName: aws.String("a"), Marker: m})
				if err != nil {
					return 0, nil, err
				}
				return len(out.DBSubnetGroups), out.Marker, nil
			}},
		{"DescribeEvents", `<Events><Event><Message>a</Message></Event></Events>`,
			func(c *rdsapi.Client, m *string) (int, *string, error) {
				out, err := c.DescribeEvents(t.Context(), &rdsapi.DescribeEventsInput{Marker: m})
				if err != nil {
					return 0, nil, err
				}
				return len(out.Events), out.Marker, nil
			}},
	} {
		t.Run(tc.action, func(t *testing.T) {
			c, f := serve(t, ok(tc.action, tc.items+`<Marker>m1</Marker>`))
			n, next, err := tc.call(c, aws.String("m0"))
			if err != nil {
				t.Fatal(err)
			}
			if n != 1 || aws.ToString(next) != "m1" || f.forms[0].Get("Marker") != "m0" {
				t.Errorf("%d items, Marker %q, sent Marker %q; want 1, m1, m0", n, aws.ToString(next), f.forms[0].Get("Marker"))
			}
		})
	}
}
