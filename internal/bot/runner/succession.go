package runner

import (
	"context"

	"github.com/kyku/action/internal/statemgr"
)

// A durable job's work marks every state lock it takes with the job's ID
// and lease (statemgr.Successor): when its worker dies holding one, the
// replica that takes the job over takes the lock over too, and finishes
// the job, instead of waiting for a lock nobody will release. Only the
// replica that holds the job's lease now may, for a lock taken under one
// of the job's earlier leases, as the bot's own store says (jobs.Job.
// Succeeds); a lock of another job, or of a person, is waited for.

var _ statemgr.Successor = (*tracked)(nil)

// Mark names t's job and lease in a state lock, and this replica as its
// holder when the lock names none.
func (t *tracked) Mark(info statemgr.LockInfo) statemgr.LockInfo {
	info.Job = statemgr.LockJob{ID: t.job.ID(), Lease: t.job.LeaseMark()}
	if info.Who == "" {
		info.Who = "kyku-bot@" + t.r.opts.Replica
	}
	return info
}

// Succeeds reports whether holder's lock was left by an earlier holder of
// t's job, judged from the store.
func (t *tracked) Succeeds(ctx context.Context, holder statemgr.LockInfo) bool {
	if holder.Job.ID != t.job.ID() {
		return false
	}
	ok, err := t.job.Succeeds(ctx, holder.Job.Lease)
	if err != nil {
		t.r.log.Warn("state lock of this job's earlier holder not taken over: the job's lease could not be checked",
			"job", holder.Job.ID, "error", err.Error())
		return false
	}
	return ok
}

// lockTakenOver logs a state lock t's work took over.
func (t *tracked) lockTakenOver(holder statemgr.LockInfo, why statemgr.TakeoverReason) {
	t.r.log.Info("state lock taken over", "job", holder.Job.ID, "holder", holder.Who, "operation", holder.Operation,
		"since", holder.Created, "path", holder.Path, "reason", why.String())
}
