// Package githubtest is a fake GitHub REST API on httptest for tests of the
// Action and the bot. It speaks the documented REST API (the JSON shapes that
// go-github decodes), not a mock of internal/github: any client, including
// go-github and ghinstallation, can talk to it.
//
// The API is mounted under the non-empty base path /api/v3/, like GitHub
// Enterprise Server, so a client that drops the base path gets 404s.
//
// It owns an in-memory model (repositories, pull requests, reviews,
// collaborators, issues and comments, reactions, check runs, files and
// tarballs, workflow dispatches, App installations, their repositories
// and installation tokens) that tests seed and
// inspect through Server methods, and it records every request it receives.
//
// Concurrency: every Server method and every handler holds one mutex, so a
// Server is safe for concurrent use by a test and any number of clients.
package githubtest
