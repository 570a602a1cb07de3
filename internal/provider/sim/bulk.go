package sim

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/kyku/action/internal/provider"
)

// callKind is one kind of call the simulator counts.
type callKind int

const (
	kindZones callKind = iota
	kindCreate
	kindRead
	kindLookup
	kindUpdate
	kindDelete
	kindList
	numKinds
)

// Calls counts the calls a Provider served, each one request a real cloud
// would have answered: a page of a bulk list is one List call.
type Calls struct {
	Zones, Create, Read, Lookup, Update, Delete, List int64
}

// Total is the sum of every kind.
func (c Calls) Total() int64 {
	return c.Zones + c.Create + c.Read + c.Lookup + c.Update + c.Delete + c.List
}

// Calls returns the counts so far (failed calls included).
func (p *Provider) Calls() Calls {
	return Calls{
		Zones: p.calls[kindZones].Load(), Create: p.calls[kindCreate].Load(), Read: p.calls[kindRead].Load(),
		Lookup: p.calls[kindLookup].Load(), Update: p.calls[kindUpdate].Load(), Delete: p.calls[kindDelete].Load(),
		List: p.calls[kindList].Load(),
	}
}

// Bulk is the simulator with bulk listing: a Provider whose ReadMany
// lists, so the engine discovers a plan's resources in a few list calls
// instead of one Read each.
type Bulk struct{ *Provider }

// Open returns the simulator for opts: a Bulk when opts.Bulk is set, else
// the plain Provider (which the engine reads one object at a time).
func Open(opts Options) (provider.Provider, error) {
	p, err := New(opts)
	if err != nil {
		return nil, err
	}
	if opts.Bulk {
		return Bulk{p}, nil
	}
	return p, nil
}

// ReadMany lists, for each type among refs, the objects whose cloud name
// starts with prefix + "-" (the simulator's label selector: a cloud name
// is "<prefix>-<name>"), PageSize objects per page. Every page is one call:
// it pays the latency and may fail transiently, which fails the whole
// ReadMany (the engine retries it). Types are listed concurrently, the
// pages of one type one after another. Left out, for the engine to Read:
// objects under another cloud name, gone ones, and those a read failure
// rule (KYKU_SIM_FAIL) matches, so that failure still surfaces.
func (b Bulk) ReadMany(ctx context.Context, prefix string, refs []provider.Ref) (map[provider.Ref]provider.Object, error) {
	want := map[string]map[string]bool{} // type → IDs asked for
	for _, r := range refs {
		if want[r.Type] == nil {
			if _, err := lookupType(r.Type); err != nil {
				return nil, err
			}
			want[r.Type] = map[string]bool{}
		}
		want[r.Type][r.ID] = true
	}
	types := make([]string, 0, len(want))
	for t := range want {
		types = append(types, t)
	}
	sort.Strings(types)

	out := make(map[provider.Ref]provider.Object, len(refs))
	var mu sync.Mutex
	errs := make([]error, len(types))
	var wg sync.WaitGroup
	for i, typ := range types {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = b.list(ctx, typ, prefix, func(rec *record) {
				if !want[typ][rec.ID] || b.injected(OpRead, typ, rec.Name) != nil {
					return
				}
				mu.Lock()
				out[provider.Ref{Type: typ, ID: rec.ID}] = toObject(rec)
				mu.Unlock()
			})
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// list calls yield for every object of typ under prefix, one page of
// PageSize objects per call.
func (b Bulk) list(ctx context.Context, typ, prefix string, yield func(*record)) error {
	recs, err := b.scan(typ, prefix+"-")
	if err != nil {
		return err
	}
	size := b.opts.PageSize
	for start := 0; start == 0 || start < len(recs); start += size {
		b.calls[kindList].Add(1)
		if err := b.wait(ctx); err != nil {
			return err
		}
		if f := b.draw(false); f != noFault {
			return transient(OpRead, typ, fmt.Sprintf("list page %d", start/size+1), f)
		}
		for _, rec := range recs[start:min(start+size, len(recs))] {
			yield(rec)
		}
	}
	return nil
}

// scan reads every object file of typ whose cloud name starts with
// cloudPrefix, sorted by ID. An object deleted while scanning is skipped.
func (b Bulk) scan(typ, cloudPrefix string) ([]*record, error) {
	entries, err := os.ReadDir(filepath.Join(b.store.dir, typ))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sim: list %s: %w", typ, err)
	}
	var recs []*record
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !validID(id) {
			continue
		}
		rec, err := b.store.read(typ, id)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if strings.HasPrefix(rec.CloudName, cloudPrefix) {
			recs = append(recs, rec)
		}
	}
	sort.Slice(recs, func(i, j int) bool {
		if len(recs[i].ID) != len(recs[j].ID) {
			return len(recs[i].ID) < len(recs[j].ID)
		}
		return recs[i].ID < recs[j].ID
	})
	return recs, nil
}
