// Package spaces opens DigitalOcean Spaces as an S3 endpoint: an
// s3.Backend on https://<region>.digitaloceanspaces.com with the keys from
// SPACES_ACCESS_KEY_ID / SPACES_SECRET_ACCESS_KEY (or the AWS variables).
//
// Kyku's lock and conditional writes rely on S3's If-None-Match and
// If-Match on PutObject and DeleteObject. DigitalOcean's documentation of
// Spaces' S3 compatibility does not list conditional writes among the
// supported features, so Kyku checks them itself when it opens the backend
// (a probe object under the prefix: create-if-absent twice, overwrite on a
// wrong ETag; both must be refused with 412). If they are not enforced it
// refuses to run, unless the config says lock: false: then no lock object
// is written, writes are unconditional, and the team must make sure that
// only one run touches the state at a time (docs/state.md "DigitalOcean Spaces").
package spaces
