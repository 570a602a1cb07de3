package jobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/kyku/action/internal/claim"
)

// maxLeases bounds Record.Leases: a job is given up after a few takeovers
// (the bot's maxTakeovers), and a lock older than the leases kept is
// waited for, as any other.
const maxLeases = 8

// LeaseMark names the lease the job is held under in what its work leaves
// outside the store (a state lock names the job and this mark): a digest
// of the lease's token, which it does not reveal.
func (j *Job) LeaseMark() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return leaseMark(j.lease.Token)
}

func leaseMark(token string) string {
	sum := sha256.Sum256([]byte("kyku job lease\x00" + token))
	return hex.EncodeToString(sum[:8])
}

// withLease is marks with mark appended, the last maxLeases kept.
func withLease(marks []string, mark string) []string {
	marks = append(slices.Clone(marks), mark)
	if len(marks) > maxLeases {
		marks = marks[len(marks)-maxLeases:]
	}
	return marks
}

// Succeeds reports whether this holder may take over what the job's work
// left under the lease marked mark (a state lock its worker held when it
// died), judged from the store, which the bot alone writes: the job's
// lease there is this holder's now (its token, before its deadline), and
// the job's record lists mark as one of the leases the job was held under
// before — not the one it is held under now, whose locks are this
// holder's own work, running.
func (j *Job) Succeeds(ctx context.Context, mark string) (bool, error) {
	j.mu.Lock()
	id, token, lost := j.rec.ID, j.lease.Token, j.lost
	j.mu.Unlock()
	if lost || mark == "" || mark == leaseMark(token) {
		return false, nil
	}
	data, _, err := j.s.objs.ReadObject(ctx, leaseKey(j.key))
	if err != nil {
		return false, fmt.Errorf("read the lease of job %s: %w", id, err)
	}
	var held claim.Record
	if json.Unmarshal(data, &held) != nil || held.Token != token || !j.s.now().Before(held.Until) {
		return false, nil
	}
	data, _, err = j.s.objs.ReadObject(ctx, j.key)
	if err != nil {
		return false, fmt.Errorf("read the record of job %s: %w", id, err)
	}
	if len(data) > MaxRecordBytes {
		return false, nil
	}
	rec, err := j.s.open(j.key, data)
	if err != nil || rec.ID != id {
		return false, nil
	}
	return slices.Contains(rec.Leases, mark), nil
}
