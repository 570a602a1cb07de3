// Package awstest owns a fake AWS for tests: an httptest server that speaks
// the real wire protocols of the calls Kyku's AWS provider makes — EC2 Query
// (form POST, XML in the 2016-11-15 namespace, <Response><Errors> errors),
// the AWS Query protocol of ELBv2 and RDS (<XResponse><XResult>,
// <ErrorResponse>), and SSM's JSON 1.1 — so the real aws-sdk-go-v2 clients
// run against it through BaseEndpoint. Shapes follow the SDK's request and
// response snapshots.
//
// It keeps the objects it created, answers the Describe filters the provider
// uses, rejects IDs of the wrong kind (a VpcId not starting with "vpc-" gets
// InvalidVpcID.Malformed), and has knobs for tests: Fail/Throttle inject
// errors for the next N calls of an action, Calls counts requests per
// action, Edit mutates objects behind the client's back (drift), Inventory
// lists what is left.
//
// Concurrency: one mutex guards the whole state; every method is safe for
// concurrent use.
package awstest
