package objstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

// journalKey is the object of entry seq: zero-padded so that keys sort by seq.
func (b *Backend) journalKey(seq int64) string {
	return fmt.Sprintf("%s%020d.json", b.journalPrefix(), seq)
}

// Append stores e as one small object of its own (O(size of e)); it is
// durable when Append returns. Appending a different entry with a Seq that
// is already taken is an error; repeating the same entry is not.
func (b *Backend) Append(ctx context.Context, e state.Entry) error {
	if e.Seq < 0 {
		return b.errorf("append journal entry: negative seq %d", e.Seq)
	}
	plain, err := json.Marshal(e)
	var data []byte
	if err == nil {
		data, err = statemgr.Seal(ctx, b.opts.Codec, statemgr.JournalLabel(b.env), plain)
	}
	if err != nil {
		return b.errorf("encode journal entry %d: %w", e.Seq, err)
	}
	key := b.journalKey(e.Seq)
	_, err = b.bucket.Put(ctx, key, data, Cond{IfAbsent: true})
	if isPrecondition(err) {
		// Ours if it holds this very entry: an attempt whose answer was
		// lost, or the same entry appended again.
		if o, gerr := b.bucket.Get(ctx, key); gerr == nil {
			if got, oerr := statemgr.Open(ctx, b.opts.Codec, statemgr.JournalLabel(b.env), o.Data); oerr == nil && bytes.Equal(got, plain) {
				return nil
			}
		}
		return b.errorf("append journal entry: %s already holds a different entry with seq %d", b.url(key), e.Seq)
	}
	if err != nil {
		return b.wrap("append journal entry", key, err)
	}
	return nil
}

// journalFetchers bounds the concurrent Gets of Entries.
const journalFetchers = 8

// Entries returns the journal's entries sorted by Seq.
func (b *Backend) Entries(ctx context.Context) ([]state.Entry, error) {
	keys, err := b.journalKeys(ctx)
	if err != nil {
		return nil, err
	}
	entries := make([]state.Entry, len(keys))
	errs := make([]error, len(keys))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(journalFetchers, len(keys)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				entries[i], errs[i] = b.readEntry(ctx, keys[i])
			}
		}()
	}
	for i := range keys {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Seq < entries[j].Seq })
	return entries, nil
}

func (b *Backend) readEntry(ctx context.Context, key string) (state.Entry, error) {
	o, err := b.bucket.Get(ctx, key)
	if isNotFound(err) {
		return state.Entry{}, b.errorf("journal entry %s vanished while reading (is the journal being cleared by another run?)", b.url(key))
	}
	if err != nil {
		return state.Entry{}, b.wrap("read journal entry", key, err)
	}
	plain, err := statemgr.Open(ctx, b.opts.Codec, statemgr.JournalLabel(b.env), o.Data)
	if err != nil {
		return state.Entry{}, b.errorf("journal entry %s: %w", b.url(key), err)
	}
	e, err := statemgr.DecodeEntry(plain)
	if err != nil {
		return state.Entry{}, b.errorf("journal entry %s: %w", b.url(key), err)
	}
	return e, nil
}

// journalKeys lists the entry objects (ignoring anything else under the
// journal prefix).
func (b *Backend) journalKeys(ctx context.Context) ([]string, error) {
	all, err := b.bucket.List(ctx, b.journalPrefix())
	if err != nil {
		return nil, err
	}
	keys := all[:0]
	for _, k := range all {
		if strings.HasSuffix(k, ".json") && !strings.Contains(strings.TrimPrefix(k, b.journalPrefix()), "/") {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// ClearJournal deletes every entry.
func (b *Backend) ClearJournal(ctx context.Context) error {
	keys, err := b.journalKeys(ctx)
	if err != nil {
		return err
	}
	return b.bucket.DeleteAll(ctx, keys)
}
