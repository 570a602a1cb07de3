package statemgr

import "context"

// A held lock is waited for, and broken only once its heartbeat is stale,
// except when its holder is known to be gone: then Lock takes it over at
// once and tells ctx's LockTakenOver hook why. Two cases are known: a
// local lock whose process no longer runs on this host (package local
// judges it from LockInfo.Process), and a lock a durable job's earlier
// holder took, met by the run that holds the job's lease now (ctx's
// Successor judges it; every backend asks).

// Process identifies the process that took a lock well enough for another
// process on the same host to tell whether it still runs: the kernel's
// boot, the pid namespace LockInfo.PID is in, the user, and the process's
// start time (a pid is reused, a start time is not). Zero when unknown.
type Process struct {
	Boot  string `json:"boot"`
	PIDNS string `json:"pidns"`
	UID   int    `json:"uid"`
	Start uint64 `json:"start"` // clock ticks after boot
}

// LockJob names the bot's durable job a lock was taken for, and the lease
// it was taken under: a digest of the lease, never its token.
type LockJob struct {
	ID    string `json:"id"`
	Lease string `json:"lease"`
}

// TakeoverReason says why a held lock was taken over at once.
type TakeoverReason int

const (
	// ProcessGone: the holder ran on this host, and its process is gone.
	ProcessGone TakeoverReason = iota + 1
	// JobResumed: the holder worked for a durable job whose lease this
	// run holds now.
	JobResumed
)

// String is the reason as messages give it.
func (r TakeoverReason) String() string {
	switch r {
	case ProcessGone:
		return "its process is no longer running on this host"
	case JobResumed:
		return "its job was taken over by this run after the run that held it stopped renewing its lease"
	}
	return "unknown reason"
}

// Successor is a run that carries on the work of an earlier run that
// stopped without releasing its locks (the bot replica that took over a
// durable job). Every Lock made with a context carrying one marks its lock
// with Mark, and takes over at once a held lock Succeeds accepts.
type Successor interface {
	// Mark returns info with what names the run's work (LockInfo.Job).
	Mark(info LockInfo) LockInfo
	// Succeeds reports whether holder's lock was taken for this run's
	// work by an earlier run that no longer has a right to it. Any doubt
	// (an error reading what it judges from) is false.
	Succeeds(ctx context.Context, holder LockInfo) bool
}

type successorKey struct{}

// WithSuccessor returns ctx carrying s for every Lock call made with it.
func WithSuccessor(ctx context.Context, s Successor) context.Context {
	return context.WithValue(ctx, successorKey{}, s)
}

// ForRun returns info as ctx's Successor marks it (info without one).
func ForRun(ctx context.Context, info LockInfo) LockInfo {
	if s, ok := ctx.Value(successorKey{}).(Successor); ok {
		return s.Mark(info)
	}
	return info
}

// Inherits reports whether ctx's Successor may take holder's lock over
// now; false without one, and for a lock that names no job.
func Inherits(ctx context.Context, holder LockInfo) bool {
	s, ok := ctx.Value(successorKey{}).(Successor)
	return ok && holder.Job.ID != "" && s.Succeeds(ctx, holder)
}

// LockTakenOver is told that a Lock took holder's lock over, and why: a
// front door says so (kyku prints one line, the bot logs it). It must not
// block.
type LockTakenOver func(holder LockInfo, why TakeoverReason)

type lockTakenOverKey struct{}

// WithLockTakenOver returns ctx carrying fn for every Lock call made with it.
func WithLockTakenOver(ctx context.Context, fn LockTakenOver) context.Context {
	return context.WithValue(ctx, lockTakenOverKey{}, fn)
}

// TellTakenOver calls ctx's LockTakenOver hook, when there is one.
func TellTakenOver(ctx context.Context, holder LockInfo, why TakeoverReason) {
	if fn, ok := ctx.Value(lockTakenOverKey{}).(LockTakenOver); ok {
		fn(holder, why)
	}
}
