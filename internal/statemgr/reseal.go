package statemgr

import (
	"context"
	"errors"
	"fmt"
)

// ObjectPrefixes are where named objects live: saved plans and audit
// records.
var ObjectPrefixes = []string{"plans/", "runs/"}

// ResealReport counts what Reseal rewrote.
type ResealReport struct {
	State   bool // the state was rewritten
	Backups int
	Objects int
}

// Reseal rewrites the state, every backup and every named object under
// ObjectPrefixes through b, so that each is stored as b's codec now seals it
// (kyku state rekey: under a new key, or encrypted for the first time). Each
// is read with whatever key opens it, so b's codec must accept the previous
// key (a fallback) or clear data. It holds the lock throughout, and refuses
// while the journal holds entries of an unfinished apply. The state keeps
// its serial: saved plans stay valid.
func Reseal(ctx context.Context, b Backend, info LockInfo) (ResealReport, error) {
	var r ResealReport
	rw, ok := b.(BackupRewriter)
	if !ok {
		return r, fmt.Errorf("rekey: %s cannot rewrite its backups in place", b.Describe())
	}
	l, err := b.Lock(ctx, info)
	if err != nil {
		return r, fmt.Errorf("rekey: lock state (%s): %w", b.Describe(), err)
	}
	defer func() { _ = l.Unlock(context.WithoutCancel(ctx)) }()
	entries, err := b.Entries(ctx)
	if err != nil {
		return r, fmt.Errorf("rekey: read journal: %w", err)
	}
	if len(entries) > 0 {
		return r, errors.New("rekey: the journal holds entries of an unfinished apply; run kyku apply (or refresh) first, then rekey")
	}
	st, err := b.Read(ctx)
	if err != nil {
		return r, fmt.Errorf("rekey: read state: %w", err)
	}
	if st != nil {
		if err := b.Write(ctx, st, WriteOptions{Force: true}); err != nil {
			return r, fmt.Errorf("rekey: rewrite state: %w", err)
		}
		r.State = true
	}
	backups, err := b.ListBackups(ctx)
	if err != nil {
		return r, fmt.Errorf("rekey: list backups: %w", err)
	}
	for _, bi := range backups {
		f, err := b.ReadBackup(ctx, bi.Key)
		if err != nil {
			return r, fmt.Errorf("rekey: read backup %s: %w", bi.Key, err)
		}
		if err := rw.RewriteBackup(ctx, bi.Key, f); err != nil {
			return r, fmt.Errorf("rekey: rewrite backup %s: %w", bi.Key, err)
		}
		r.Backups++
	}
	for _, prefix := range ObjectPrefixes {
		keys, err := b.ListObjects(ctx, prefix)
		if err != nil {
			return r, fmt.Errorf("rekey: list %s: %w", prefix, err)
		}
		for _, k := range keys {
			data, err := b.GetObject(ctx, k)
			if err != nil {
				return r, fmt.Errorf("rekey: read %s: %w", k, err)
			}
			if err := b.PutObject(ctx, k, data); err != nil {
				return r, fmt.Errorf("rekey: rewrite %s: %w", k, err)
			}
			r.Objects++
		}
	}
	return r, nil
}
