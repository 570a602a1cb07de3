// Package rdsapi is the client of Amazon RDS (API version 2014-10-31)
// that Kyku's AWS provider calls: one method per operation it uses, with
// only the request and answer fields it sends and reads, spoken over the
// Query protocol by awswire. RDS names each list's members after their
// type (SubnetIds.SubnetIdentifier.N, Tags.Tag.N.Key,
// Filters.Filter.N.Values.Value.M; a list of tag keys is TagKeys.member.N),
// answers as <XResponse><XResult> and pages by Marker both ways. It
// replaces the SDK's generated service/rds, whose compilation cost every
// build of Kyku over 20 seconds of CPU for eleven calls.
//
// A Client is safe for concurrent use. It never retries: the provider's
// retry policy counts every request. Errors are awswire's, shaped as the
// SDK's (smithy.APIError with the HTTP status).
package rdsapi
