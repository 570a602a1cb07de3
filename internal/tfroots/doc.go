// Package tfroots owns the Terraform roots of a repository as the front
// doors (the Action, the bot) see them: which directories a pull request
// touches, found as Atlantis finds them (find.go), a source tree written
// to disk to be loaded (tree.go), and what a pull request may not change
// in a root (guard.go): the state's place (the backend block and its
// -backend-config files) and the states terraform_remote_state reads.
//
// Concurrency: every function works on its arguments alone and may be
// called from many goroutines.
package tfroots
