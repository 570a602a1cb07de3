// Package jobs owns the bot's durable job records: what a replica accepted
// and has not finished, kept in the bot's own store (KYKU_BOT_STORE) so that
// no accepted job is lost with the process that accepted it.
//
// A job is two objects under the store's prefix, both keyed by the job's ID
// (a webhook's X-GitHub-Delivery, or the bot's own ID for scheduled work):
//
//	jobs/<sha256(ID)>.json    the record: the signed body, its HMAC, when and by whom
//	                          it was accepted, how often it was taken over, and the
//	                          steps done so far (a check run opened, a workflow dispatched),
//	                          all of it signed (seal.go)
//	leases/<sha256(ID)>.json  the lease (package claim): who works on it, until when
//
// Accept takes the lease, then creates the record with a conditional create
// (the delivery can be recorded once); the worker renews the lease while it
// works and Finish deletes the record, then the lease. A replica that dies
// stops renewing: once the lease has expired, TakeOrphans (any replica, at
// start and periodically) takes it over and returns the record to run again.
// Offer records work nobody holds yet (a drift round's repositories), for
// whichever replica takes it first.
//
// The record's steps are written only by the lease's holder, each write
// conditional on the version it last wrote, so a holder that lost its lease
// cannot overwrite the new holder's progress (ErrLost).
//
// Every record is written signed, all its fields, with a key derived from
// the webhook secret, and a record read back is refused unless its
// signature verifies (a record changed in the store, copied under another
// ID, or of the earlier format that signed only the body). The lease holds
// no work: a lease changed in the store can only delay a takeover or hasten
// one, as deleting the record could. Nothing else here judges a job: the
// bot also checks the body's HMAC before it runs one, and every rule (who
// may apply, is the plan still the reviewed one) is judged again from
// scratch when a job runs again.
//
// Concurrency: a *Store and a *Job are safe for concurrent use.
package jobs
