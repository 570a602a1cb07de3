// Package lease holds per-object leases on one environment's state: an
// apply leases the objects it changes and those they read from, not the
// whole state, so applies that touch different objects run at the same
// time. A lease is a small record written with a backend's conditional
// writes (statemgr.Conditional: S3's If-None-Match/If-Match, GCS
// generations) under "leases/<env>/", renewed by a heartbeat like the
// state lock's and taken over once that heartbeat is stale.
//
// Leases are taken in the order of their objects' names, and a set is
// either taken whole or not at all (what was taken is released before
// waiting), so two applies never wait for each other in a cycle.
//
// Journal (journal.go) is the journal of one leased run, beside the
// others' and not shared with them, so that one run's recovery or
// clearing never touches another's entries.
//
// A Manager and a Set are safe for concurrent use; a Set's heartbeat runs
// in a goroutine of its own until Release.
package lease
