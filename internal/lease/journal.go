package lease

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

// Record is one entry of a run's journal with what it was based on: the
// version (Digest) of each object it names in the state the run started
// from. Fold applies it only while the object is still at that version.
type Record struct {
	Entry state.Entry       `json:"entry"`
	Prior map[string]string `json:"prior"`
}

// Journal is the journal of one leased run: its entries under
// "journals/<stem>/<run>/", one object each, created once. It implements
// statemgr.Journal, so an apply journals into it as into the state's.
type Journal struct {
	m     *Manager
	run   string
	prior func(name string) string // the object's version when the run started
}

var _ statemgr.Journal = (*Journal)(nil)

// Journal returns run's journal; prior gives the version of an object in
// the state the run started from (nil for a journal only read or cleared).
func (m *Manager) Journal(run string, prior func(name string) string) *Journal {
	return &Journal{m: m, run: run, prior: prior}
}

func (m *Manager) journals() string { return "journals/" + m.stem + "/" }

func (j *Journal) dir() string { return j.m.journals() + j.run + "/" }

// Run is the run's token.
func (j *Journal) Run() string { return j.run }

// Append stores e, durably, as an object of its own; the same entry again
// is not an error, another one with its Seq is.
func (j *Journal) Append(ctx context.Context, e state.Entry) error {
	r := Record{Entry: e, Prior: map[string]string{}}
	for _, n := range []string{e.Name, e.From} {
		if n != "" && j.prior != nil {
			r.Prior[n] = j.prior(n)
		}
	}
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode journal entry %d: %w", e.Seq, err)
	}
	key := fmt.Sprintf("%s%020d.json", j.dir(), e.Seq)
	if _, err := j.m.store.CreateObject(ctx, key, data); err != nil {
		if errors.Is(err, statemgr.ErrExists) {
			if got, _, rerr := j.m.store.ReadObject(ctx, key); rerr == nil && bytes.Equal(got, data) {
				return nil
			}
			return fmt.Errorf("append journal entry: %s holds another entry with seq %d", key, e.Seq)
		}
		return fmt.Errorf("append journal entry %d: %w", e.Seq, err)
	}
	return nil
}

// Records returns the run's entries in Seq order.
func (j *Journal) Records(ctx context.Context) ([]Record, error) {
	keys, err := j.m.store.ListObjects(ctx, j.dir())
	if err != nil {
		return nil, fmt.Errorf("list journal of run %s: %w", j.run, err)
	}
	slices.Sort(keys)
	var out []Record
	for _, k := range keys {
		data, _, err := j.m.store.ReadObject(ctx, k)
		if errors.Is(err, statemgr.ErrNotFound) {
			continue // cleared meanwhile by another recovery: nothing lost, it was folded
		}
		if err != nil {
			return nil, fmt.Errorf("read journal entry %s: %w", k, err)
		}
		var r Record
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("journal entry %s: %w", k, err)
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b Record) int { return int(a.Entry.Seq - b.Entry.Seq) })
	return out, nil
}

// Entries returns the run's entries (statemgr.Journal).
func (j *Journal) Entries(ctx context.Context) ([]state.Entry, error) {
	recs, err := j.Records(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]state.Entry, len(recs))
	for i, r := range recs {
		out[i] = r.Entry
	}
	return out, nil
}

// ClearJournal deletes the run's entries.
func (j *Journal) ClearJournal(ctx context.Context) error {
	keys, err := j.m.store.ListObjects(ctx, j.dir())
	if err != nil {
		return fmt.Errorf("list journal of run %s: %w", j.run, err)
	}
	for _, k := range keys {
		_, v, err := j.m.store.ReadObject(ctx, k)
		if errors.Is(err, statemgr.ErrNotFound) {
			continue
		}
		if err == nil {
			err = j.m.store.DeleteObject(ctx, k, v)
		}
		if err != nil {
			return fmt.Errorf("clear journal entry %s: %w", k, err)
		}
	}
	return nil
}

// Orphans returns the journals of runs that hold no live lease: runs that
// ended without clearing theirs (killed), whose finished changes the next
// run folds into the state (Fold). The run named except is left out.
func (m *Manager) Orphans(ctx context.Context, except string) ([]*Journal, error) {
	keys, err := m.store.ListObjects(ctx, m.journals())
	if err != nil {
		return nil, fmt.Errorf("list run journals: %w", err)
	}
	runs := map[string]bool{}
	for _, k := range keys {
		rest := strings.TrimPrefix(k, m.journals())
		if run, _, ok := strings.Cut(rest, "/"); ok && run != except {
			runs[run] = true
		}
	}
	if len(runs) == 0 {
		return nil, nil
	}
	live, err := m.Live(ctx)
	if err != nil {
		return nil, err
	}
	var out []*Journal
	for _, run := range slices.Sorted(maps.Keys(runs)) {
		if _, ok := live[run]; !ok {
			out = append(out, m.Journal(run, nil))
		}
	}
	return out, nil
}
