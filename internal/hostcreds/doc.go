// Package hostcreds owns the API tokens of registry hosts, found as
// OpenTofu finds them: a TF_TOKEN_<host> environment variable first, then
// a credentials "host" { token = "…" } block of the CLI configuration
// (TF_CLI_CONFIG_FILE, else ~/.tofurc or ~/.terraformrc, and the *.tfrc
// and *.tfrc.json files of ~/.terraform.d). Credentials helpers are not
// run.
//
// A token goes only to the exact host it is for (Authorize): never to
// another host, whether a service URL, a file URL or a redirect names it.
// Tokens never appear in what this package returns as text.
//
// Tokens is safe for concurrent use; it reads the files on first use.
package hostcreds
