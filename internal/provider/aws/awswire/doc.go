// Package awswire is a small client for the AWS wire protocols Kyku's AWS
// provider speaks, written for the few dozen calls it makes rather than
// linking the SDK's generated service packages (EC2's alone is 30 MB of
// Go source, a fifth of a cold build of Kyku):
//
//   - the Query protocols (Client.Query): a form-encoded POST of
//     Action, Version and the call's parameters, answered in XML. EC2
//     speaks its own dialect, whose errors come as
//     <Response><Errors><Error>; ELBv2 and RDS answer
//     <XResponse><XResult> and fail with <ErrorResponse><Error>
//     (AWS General Reference, "Query requests"; Amazon EC2 API Reference,
//     "Making requests" and "Error codes").
//   - the JSON 1.1 protocol (Client.JSON) SSM speaks: a POST of a JSON
//     document naming its operation in X-Amz-Target, failing with
//     {"__type": …, "message": …}.
//
// Every request is signed with Signature Version 4 by the SDK's signer
// (aws/signer/v4, part of the SDK's core that Kyku's S3 state backend
// links anyway). Errors keep the shapes the SDK's own clients return, so
// callers tell them apart the same way: an answer from AWS is a
// smithy.APIError (Error, which also has HTTPStatusCode), a request that
// could not be sent is a *smithyhttp.RequestSendError, and an answer cut
// short is io.ErrUnexpectedEOF. The client retries only a request AWS
// refused for a skewed clock, once, signed at the time AWS's answer gave
// (Skew); its caller's retry policy counts every other request.
package awswire
