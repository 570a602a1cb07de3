// Package webhooktest loads the repository's own webhook payloads,
// testdata/github-events/*.json at the module root (see testdata/README.md),
// for the tests of the Action and the bot. Tests decode a payload, change
// the fields they care about and deliver it.
//
// Names are file names without ".json" ("pull_request.opened"). A name may
// carry ".json", and a name qualified the way GitHub's published example
// sets qualify theirs (".with-installation", ".with-organization",
// ".with-pull-requests", ".1") resolves to the same fixture without the
// qualifier, because every fixture here carries the whole envelope (sender,
// repository, organization, installation) and the fullest form of its
// event.
//
// Nothing here reads outside the module: the fixtures are found by walking
// up from the test's working directory to go.mod.
//
// Concurrency: every function is safe for concurrent use; files are read
// once per process and cached.
package webhooktest
