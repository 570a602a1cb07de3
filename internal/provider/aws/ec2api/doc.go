// Package ec2api is the small EC2 client Kyku's AWS provider calls: one
// method per EC2 action it uses, on awswire's signed Query client, in
// place of the SDK's generated service/ec2 (30 MB of Go source for the
// 38 actions Kyku makes).
//
// Requests and answers hold only the fields Kyku sends and reads, named
// and typed as the SDK names them (optional values are pointers: an
// absent one is not sent), so the provider reads the same either way.
// Requests are serialized as EC2's Query dialect does (Amazon EC2 API
// Reference, "Query requests": lists as Name.1, Name.2, structures as
// Name.1.Member, booleans lowercase, blobs base64), and answers are EC2's
// 2016-11-15 XML (lists of <item>, tags in <tagSet>, a page's
// <nextToken>). Each method cites the API Reference page of its action.
//
// The client never retries and never pages on its own: the provider's
// retry policy counts every request, and it reads every page by
// NextToken. A Client is safe for concurrent use.
package ec2api
