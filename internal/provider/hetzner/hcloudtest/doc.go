// Package hcloudtest owns a fake Hetzner Cloud API for tests: an httptest
// server mounted under a non-empty base path (so a client that drops the
// base path fails) that speaks the documented REST endpoints the Kyku
// provider uses — locations, actions, networks (subnets as actions),
// firewalls, SSH keys, servers (power, rescale, network attach) and load
// balancers (services, targets) — with the documented JSON shapes, written
// here independently of the hcloud-go SDK's own schema types so the real
// client is tested against the documentation, not against itself.
//
// Behaviour that matters to a client is modelled: bearer-token auth;
// errors as {"error":{"code","message","details"}} with the documented
// status codes; pagination (page, per_page ≤ 50, meta.pagination); the
// label_selector and name filters; names unique per project (and SSH keys
// unique by fingerprint): uniqueness_error; asynchronous actions that stay
// "running" for several polls of GET /actions/{id} before "success" (their
// effect applies when they finish, and the resources they touch are
// "locked" meanwhile); servers that stay "starting" for several reads
// before "running"; a token-bucket rate limit (RateLimit-Limit,
// RateLimit-Remaining, RateLimit-Reset on every answer, 429
// rate_limit_exceeded when empty) driven by an injectable clock.
//
// Knobs for tests: Fail injects an error code for the next N calls of one
// route ("POST /servers"); SetRateLimit sets the bucket; SetActionPolls and
// SetBootPolls set how long things take; Calls counts requests per route;
// Edit changes objects behind the client's back (drift); Inventory lists
// what is left.
//
// What the API does the same way for every kind of object (listing with
// filters and pages, get, rename and relabel, delete, actions on one
// object, unique names) is one generic kind[T] (kind.go); each kind's file
// holds what differs.
//
// Concurrency: one mutex guards the whole state; every method is safe for
// concurrent use.
package hcloudtest
