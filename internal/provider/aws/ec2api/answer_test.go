package ec2api_test

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider/aws/ec2api"
)

const ns = `xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"`

// An instance as EC2 describes it decodes into every field Kyku reads:
// items of reservationSet and instancesSet, its state and why, its
// groups, its tags, ipAddress as the public address.
func TestDescribeInstancesDecodes(t *testing.T) {
	c, _ := start(t, func(url.Values) (int, string) {
		return 200, `<?xml version="1.0" encoding="UTF-8"?>
<DescribeInstancesResponse ` + ns + `>
  <requestId>r-1</requestId>
  <reservationSet>
    <item>
      <reservationId>r-0a</reservationId>
      <instancesSet>
        <item>
          <instanceId>i-0a</instanceId>
          <imageId>ami-0123</imageId>
          <instanceState><code>48</code><name>terminated</name></instanceState>
          <stateReason><code>Server.InternalError</code><message>Internal error on launch</message></stateReason>
          <instanceType>t3.small</instanceType>
          <subnetId>subnet-1</subnetId>
          <vpcId>vpc-1</vpcId>
          <privateIpAddress>10.0.0.4</privateIpAddress>
          <ipAddress>203.0.113.7</ipAddress>
          <keyName>demo-key</keyName>
          <groupSet><item><groupId>sg-1</groupId><groupName>web</groupName></item><item><groupId>sg-2</groupId></item></groupSet>
          <tagSet><item><key>Name</key><value>demo-web</value></item><item><key>empty</key><value></value></item></tagSet>
        </item>
      </instancesSet>
    </item>
  </reservationSet>
</DescribeInstancesResponse>`
	})
	out, err := c.DescribeInstances(t.Context(), &ec2api.DescribeInstancesInput{})
	if err != nil {
		t.Fatal(err)
	}
	want := &ec2api.DescribeInstancesOutput{Reservations: []ec2api.Reservation{{Instances: []ec2api.Instance{{
		InstanceId: str("i-0a"), ImageId: str("ami-0123"), InstanceType: "t3.small",
		State:       &ec2api.InstanceState{Name: ec2api.InstanceStateNameTerminated},
		StateReason: &ec2api.StateReason{Code: str("Server.InternalError"), Message: str("Internal error on launch")},
		SubnetId:    str("subnet-1"), VpcId: str("vpc-1"), KeyName: str("demo-key"),
		PrivateIpAddress: str("10.0.0.4"), PublicIpAddress: str("203.0.113.7"),
		SecurityGroups: []ec2api.GroupIdentifier{{GroupId: str("sg-1")}, {GroupId: str("sg-2")}},
		Tags:           []ec2api.Tag{{Key: str("Name"), Value: str("demo-web")}, {Key: str("empty"), Value: str("")}},
	}}}}}
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("decoded (-want +got):\n%s", d)
	}
}

// A security group's rules decode with their ports (none for protocol
// -1), CIDR blocks and direction.
func TestDescribeSecurityGroupsDecodes(t *testing.T) {
	c, _ := start(t, func(url.Values) (int, string) {
		return 200, `<DescribeSecurityGroupsResponse ` + ns + `><requestId>r-1</requestId><securityGroupInfo><item>
<groupId>sg-1</groupId><groupName>demo-web</groupName><vpcId>vpc-1</vpcId><groupDescription>Kyku</groupDescription>
<ipPermissions><item><ipProtocol>tcp</ipProtocol><fromPort>22</fromPort><toPort>22</toPort>
<ipRanges><item><cidrIp>10.0.0.0/8</cidrIp></item><item><cidrIp>192.0.2.0/24</cidrIp></item></ipRanges></item></ipPermissions>
<ipPermissionsEgress><item><ipProtocol>-1</ipProtocol><ipRanges><item><cidrIp>0.0.0.0/0</cidrIp></item></ipRanges></item></ipPermissionsEgress>
<tagSet/></item></securityGroupInfo></DescribeSecurityGroupsResponse>`
	})
	out, err := c.DescribeSecurityGroups(t.Context(), &ec2api.DescribeSecurityGroupsInput{GroupIds: []string{"sg-1"}})
	if err != nil {
		t.Fatal(err)
	}
	want := &ec2api.DescribeSecurityGroupsOutput{SecurityGroups: []ec2api.SecurityGroup{{
		GroupId: str("sg-1"), VpcId: str("vpc-1"),
		IpPermissions: []ec2api.IpPermission{{IpProtocol: str("tcp"), FromPort: i32(22), ToPort: i32(22),
			IpRanges: []ec2api.IpRange{{CidrIp: str("10.0.0.0/8")}, {CidrIp: str("192.0.2.0/24")}}}},
		IpPermissionsEgress: []ec2api.IpPermission{{IpProtocol: str("-1"), IpRanges: []ec2api.IpRange{{CidrIp: str("0.0.0.0/0")}}}},
	}}}
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("decoded (-want +got):\n%s", d)
	}
}

// describer reads one page of a paginated Describe from token and
// returns the IDs on it and the next token.
type describer func(ctx context.Context, c *ec2api.Client, f []ec2api.Filter, token *string) ([]string, *string, error)

// paged are the paginated Describes, each with its answer's list and the
// element naming an item's ID ("" for an instance, inside its
// reservation).
var paged = []struct {
	action, set, id string
	read            describer
}{
	{"DescribeVpcs", "vpcSet", "vpcId", func(ctx context.Context, c *ec2api.Client, f []ec2api.Filter, tok *string) ([]string, *string, error) {
		out, err := c.DescribeVpcs(ctx, &ec2api.DescribeVpcsInput{Filters: f, NextToken: tok})
		if err != nil {
			return nil, nil, err
		}
		return ids(out.Vpcs, func(v ec2api.Vpc) *string { return v.VpcId }), out.NextToken, nil
	}},
	{"DescribeSubnets", "subnetSet", "subnetId", func(ctx context.Context, c *ec2api.Client, f []ec2api.Filter, tok *string) ([]string, *string, error) {
		out, err := c.DescribeSubnets(ctx, &ec2api.DescribeSubnetsInput{Filters: f, NextToken: tok})
		if err != nil {
			return nil, nil, err
		}
		return ids(out.Subnets, func(v ec2api.Subnet) *string { return v.SubnetId }), out.NextToken, nil
	}},
	{"DescribeSecurityGroups", "securityGroupInfo", "groupId", func(ctx context.Context, c *ec2api.Client, f []ec2api.Filter, tok *string) ([]string, *string, error) {
		out, err := c.DescribeSecurityGroups(ctx, &ec2api.DescribeSecurityGroupsInput{Filters: f, NextToken: tok})
		if err != nil {
			return nil, nil, err
		}
		return ids(out.SecurityGroups, func(v ec2api.SecurityGroup) *string { return v.GroupId }), out.NextToken, nil
	}},
	{"DescribeInternetGateways", "internetGatewaySet", "internetGatewayId", func(ctx context.Context, c *ec2api.Client, f []ec2api.Filter, tok *string) ([]string, *string, error) {
		out, err := c.DescribeInternetGateways(ctx, &ec2api.DescribeInternetGatewaysInput{Filters: f, NextToken: tok})
		if err != nil {
			return nil, nil, err
		}
		return ids(out.InternetGateways, func(v ec2api.InternetGateway) *string { return v.InternetGatewayId }), out.NextToken, nil
	}},
	{"DescribeRouteTables", "routeTableSet", "routeTableId", func(ctx context.Context, c *ec2api.Client, f []ec2api.Filter, tok *string) ([]string, *string, error) {
		out, err := c.DescribeRouteTables(ctx, &ec2api.DescribeRouteTablesInput{Filters: f, NextToken: tok})
		if err != nil {
			return nil, nil, err
		}
		return ids(out.RouteTables, func(v ec2api.RouteTable) *string { return v.RouteTableId }), out.NextToken, nil
	}},
	{"DescribeNetworkInterfaces", "networkInterfaceSet", "description", func(ctx context.Context, c *ec2api.Client, f []ec2api.Filter, tok *string) ([]string, *string, error) {
		out, err := c.DescribeNetworkInterfaces(ctx, &ec2api.DescribeNetworkInterfacesInput{Filters: f, NextToken: tok})
		if err != nil {
			return nil, nil, err
		}
		return ids(out.NetworkInterfaces, func(v ec2api.NetworkInterface) *string { return v.Description }), out.NextToken, nil
	}},
	{"DescribeInstances", "reservationSet", "", func(ctx context.Context, c *ec2api.Client, f []ec2api.Filter, tok *string) ([]string, *string, error) {
		out, err := c.DescribeInstances(ctx, &ec2api.DescribeInstancesInput{Filters: f, NextToken: tok})
		if err != nil {
			return nil, nil, err
		}
		var all []ec2api.Instance
		for _, r := range out.Reservations {
			all = append(all, r.Instances...)
		}
		return ids(all, func(v ec2api.Instance) *string { return v.InstanceId }), out.NextToken, nil
	}},
}

func ids[T any](items []T, id func(T) *string) []string {
	out := []string{}
	for _, it := range items {
		if p := id(it); p != nil {
			out = append(out, *p)
		}
	}
	return out
}

// item is one listed object named x, as its action's answer lists it
// (id "" is an instance, inside its reservation).
func item(id, x string) string {
	if id == "" {
		return `<item><reservationId>r-` + x + `</reservationId><instancesSet><item><instanceId>` + x + `</instanceId></item></instancesSet></item>`
	}
	return `<item><` + id + `>` + x + `</` + id + `></item>`
}

// Every paginated Describe reads pages by nextToken as EC2 gives it, and
// a page may be empty with a token for the next (filters apply after a
// page is cut): reading on to the page without a token finds every
// object, each page asked for with the filters.
func TestPagesThroughAnEmptyPage(t *testing.T) {
	for _, tc := range paged {
		t.Run(tc.action, func(t *testing.T) {
			pages := map[string]string{
				"":      `<` + tc.set + `>` + item(tc.id, "a-1") + item(tc.id, "a-2") + `</` + tc.set + `><nextToken>t+1/=</nextToken>`,
				"t+1/=": `<` + tc.set + `/><nextToken>t2</nextToken>`,
				"t2":    `<` + tc.set + `>` + item(tc.id, "a-3") + `</` + tc.set + `><nextToken></nextToken>`,
			}
			c, fk := start(t, func(f url.Values) (int, string) {
				page, ok := pages[f.Get("NextToken")]
				if !ok || f.Get("Action") != tc.action {
					return 400, `<Response><Errors><Error><Code>InvalidParameterValue</Code><Message>bad token</Message></Error></Errors></Response>`
				}
				return 200, `<` + tc.action + `Response ` + ns + `><requestId>r-1</requestId>` + page + `</` + tc.action + `Response>`
			})
			var got []string
			var tok *string
			for n := 0; ; n++ {
				if n > 3 {
					t.Fatal("more pages than the server has")
				}
				page, next, err := tc.read(t.Context(), c, []ec2api.Filter{{Name: str("vpc-id"), Values: []string{"vpc-1"}}}, tok)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, page...)
				if next == nil || *next == "" {
					break
				}
				tok = next
			}
			if d := cmp.Diff([]string{"a-1", "a-2", "a-3"}, got); d != "" {
				t.Errorf("objects (-want +got):\n%s", d)
			}
			var tokens []string
			for _, f := range fk.forms {
				tokens = append(tokens, f.Get("NextToken"))
				if f.Get("Filter.1.Value.1") != "vpc-1" {
					t.Errorf("a page was asked for without the filter: %v", f)
				}
			}
			if d := cmp.Diff([]string{"", "t+1/=", "t2"}, tokens); d != "" {
				t.Errorf("tokens sent (-want +got):\n%s", d)
			}
		})
	}
}

// A subnet's mapPublicIpOnLaunch decodes as the boolean EC2 writes.
func TestSubnetPublicDecodes(t *testing.T) {
	c, _ := start(t, func(url.Values) (int, string) {
		return 200, `<DescribeSubnetsResponse ` + ns + `><subnetSet>
<item><subnetId>subnet-1</subnetId><vpcId>vpc-1</vpcId><cidrBlock>10.0.1.0/24</cidrBlock><availabilityZone>eu-west-1a</availabilityZone><mapPublicIpOnLaunch>true</mapPublicIpOnLaunch></item>
<item><subnetId>subnet-2</subnetId><mapPublicIpOnLaunch>false</mapPublicIpOnLaunch></item></subnetSet></DescribeSubnetsResponse>`
	})
	out, err := c.DescribeSubnets(t.Context(), &ec2api.DescribeSubnetsInput{})
	if err != nil {
		t.Fatal(err)
	}
	want := &ec2api.DescribeSubnetsOutput{Subnets: []ec2api.Subnet{
		{SubnetId: str("subnet-1"), VpcId: str("vpc-1"), CidrBlock: str("10.0.1.0/24"), AvailabilityZone: str("eu-west-1a"), MapPublicIpOnLaunch: boolp(true)},
		{SubnetId: str("subnet-2"), MapPublicIpOnLaunch: boolp(false)},
	}}
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("decoded (-want +got):\n%s", d)
	}
}

// An EC2 error answer is a smithy.APIError with EC2's code and the HTTP
// status, which is what the provider's retry policy decides by; an
// answer that is not the action's own (a proxy's page answering 200)
// is an error, never an empty listing.
func TestErrorAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		status     int
		code       string // "" is not an API error
	}{
		{name: "not found", status: 400, code: "InvalidVpcID.NotFound",
			body: `<?xml version="1.0" encoding="UTF-8"?><Response><Errors><Error><Code>InvalidVpcID.NotFound</Code><Message>The vpc ID 'vpc-9' does not exist</Message></Error></Errors><RequestID>r-1</RequestID></Response>`},
		{name: "throttled", status: 503, code: "RequestLimitExceeded",
			body: `<Response><Errors><Error><Code>RequestLimitExceeded</Code><Message>Request limit exceeded.</Message></Error></Errors><RequestID>r-2</RequestID></Response>`},
		{name: "a proxy's page with 200", status: 200, body: `<html><body>captive portal</body></html>`},
		{name: "another action's answer", status: 200, body: `<DescribeSubnetsResponse ` + ns + `><subnetSet/></DescribeSubnetsResponse>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := start(t, func(url.Values) (int, string) { return tc.status, tc.body })
			out, err := c.DescribeVpcs(t.Context(), &ec2api.DescribeVpcsInput{VpcIds: []string{"vpc-9"}})
			if err == nil {
				t.Fatalf("no error; answer %+v", out)
			}
			var ae smithy.APIError
			isAPI := errors.As(err, &ae)
			if tc.code == "" {
				if isAPI {
					t.Errorf("err = %v, want a decoding error, not an answer from AWS", err)
				}
				return
			}
			if !isAPI || ae.ErrorCode() != tc.code {
				t.Fatalf("err = %v, want a smithy.APIError with code %s", err, tc.code)
			}
			var hs interface{ HTTPStatusCode() int }
			if !errors.As(err, &hs) || hs.HTTPStatusCode() != tc.status {
				t.Errorf("err = %v, want HTTP status %d kept", err, tc.status)
			}
		})
	}
}
