// Package awstest owns a fake AWS for tests: an httptest server that speaks
// the real wire protocols of the calls Kyku's AWS provider makes — EC2 Query
// (form POST, XML in the 2016-11-15 namespace, <Response><Errors> errors),
// the AWS Query protocol of ELBv2 and RDS (<XResponse><XResult>,
// <ErrorResponse>), and SSM's JSON 1.1 — so the real aws-sdk-go-v2 clients
// run against it through BaseEndpoint. Shapes follow the SDK's request and
// response snapshots.
//
// It is as strict as AWS on what a fresh account refused:
//
//   - every paginated Describe pages (DefaultPageSize 2, SetPageSize),
//     filters applied after paging so a page may be empty;
//   - an EC2 object created a moment ago stays invisible by ID for
//     DefaultLag requests (SetLag): eventual consistency;
//   - ImportKeyPair parses the key (keyformat.go); names follow each
//     service's rule (RDS identifiers, ELBv2 names, security group names);
//   - a VPC has a default security group, which a load balancer or
//     database given none gets; a database is public unless told otherwise
//     when its VPC has an internet gateway;
//   - RDS modifications go through available-with-pending, modifying, a
//     blip of available, storage-optimization; RDS refuses a modification
//     unless available, a major version without AllowMajorVersionUpgrade,
//     shrinking storage, and rounds growth under 10% up;
//   - load balancers and databases put network interfaces in their subnets,
//     which linger ENILinger requests after them and block deleting the
//     subnet or security group (DependencyViolation);
//   - a load balancer takes one subnet per zone, two zones when it is an
//     application one; HTTPS and TLS listeners need a certificate;
//     deregistered targets drain for TargetDrain requests;
//   - DescribeAvailabilityZones lists opted-in Local Zones too.
//
// It keeps the objects it created, answers the Describe filters the
// provider uses, rejects IDs of the wrong kind (a VpcId not starting with
// "vpc-" gets InvalidVpcID.Malformed), and has knobs for tests: Fail and
// Throttle inject errors for the next N calls of an action, DropConnection
// closes connections without an answer (before or after the request is
// carried out), Stall leaves requests unanswered, FailLaunch makes launched
// instances terminate, Calls and Requests count requests, Edit mutates
// objects behind the client's back (drift), Inventory lists what is left.
// Time is counted in requests: each one advances lags, lingering
// interfaces and draining targets.
//
// Concurrency: one mutex guards the whole state; every method is safe for
// concurrent use.
package awstest
