// Package elbapi is the client of Elastic Load Balancing v2 (API version
// 2015-12-01) that Kyku's AWS provider calls: one method per operation it
// uses, with only the request and answer fields it sends and reads,
// spoken over the Query protocol by awswire (lists as Name.member.N,
// structures in lists as Name.member.N.Field, answers as
// <XResponse><XResult>, pages by Marker and NextMarker). It replaces the
// SDK's generated service/elasticloadbalancingv2, whose compilation cost
// every build of Kyku several seconds of CPU for sixteen calls.
//
// A Client is safe for concurrent use. It never retries: the provider's
// retry policy counts every request. Errors are awswire's, shaped as the
// SDK's (smithy.APIError with the HTTP status).
package elbapi
