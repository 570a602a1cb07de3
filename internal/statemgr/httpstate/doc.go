// Package httpstate keeps state in a server that speaks Terraform's HTTP
// backend protocol (GitLab's managed Terraform state, and many small state
// servers): GET the document at address, POST (updateMethod) a new one,
// LOCK (lockMethod) lockAddress with a lock-info JSON body, answered 200
// when taken and 409 or 423 with the holder's lock info when held, UNLOCK
// (unlockMethod) unlockAddress with the same body; basic auth; retries of
// transient failures.
//
// The protocol stores one document per address, so everything Kyku keeps
// for an environment lives in that one document (docs/state.md "HTTP"):
//
//	{
//	  "kyku": 1,
//	  "lineage": "…", "serial": 7,         mirrors of the state's, for servers that look at them
//	  "state":   { …state… },              or a sealed envelope when encrypted
//	  "journal": [ {…entry…}, … ],          entries of an apply in progress
//	  "backups": [ {"key": "backups/state.prod.<time>.<serial>.json", "serial": 6, "created": "…", "state": {…}} ],
//	  "objects": { "plans/prod/pr-12-<sha>.json": "<base64>", "runs/prod/…": "<base64>" }
//	}
//
// Every change is a read-modify-write of the whole document (GET, then
// POST with ?ID=<lock id>), made while holding the lock: Kyku takes the lock
// for the change itself when the caller does not hold it. A change is
// refused with statemgr.ErrConflict when the stored state differs from what
// was read. The protocol has no heartbeat or stale-lock detection: a lock
// left by a dead run is removed with kyku force-unlock. With no lockAddress
// there is no lock at all, and nothing stops two runs from writing at once.
//
// An "{env}" in an address is replaced by the environment ("default" when
// none); a named environment needs one, so that environments do not share
// a document.
//
// Concurrency: a *Backend is safe for concurrent use; its changes to the
// document are serialized.
package httpstate
