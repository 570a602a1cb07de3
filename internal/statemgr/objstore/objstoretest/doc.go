// Package objstoretest is what s3test and gcstest share: a Gate that finds
// the server a test binary needs or starts its binary (from PATH or
// $KYKU_CI_CACHE/bin) for the binary's lifetime, and makes tests skip
// without one (fail under CI=true); Start, which runs a server process and
// waits until it answers; and bucket names of a test's own.
package objstoretest
