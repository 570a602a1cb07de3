package sim

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/kyku/action/internal/provider"
)

// Rename gives object id the cloud name r.CloudName (kept when empty) and
// the Kyku name r.Name; its ID, properties and outputs stay. A cloud name
// another object of the type has is refused. It is an update: it pays the
// latency, may fail transiently, and update failure rules (KYKU_SIM_FAIL
// update:…) apply.
func (p *Provider) Rename(ctx context.Context, id string, r provider.Resource) (provider.Object, error) {
	p.calls[kindUpdate].Add(1)
	if err := p.wait(ctx); err != nil {
		return provider.Object{}, err
	}
	if _, err := lookupType(r.Type); err != nil {
		return provider.Object{}, err
	}
	if err := p.injected(OpUpdate, r.Type, r.Name); err != nil {
		return provider.Object{}, err
	}
	if f := p.draw(false); f != noFault {
		return provider.Object{}, transient(OpUpdate, r.Type, fmt.Sprintf("%q", r.Name), f)
	}
	x := p.store.indexOf(r.Type)
	if err := x.lock(p.store, r.Type); err != nil {
		return provider.Object{}, err
	}
	defer x.unlock()
	rec, err := p.readObject(r.Type, id)
	if err != nil {
		return provider.Object{}, err
	}
	if r.CloudName != "" && r.CloudName != rec.CloudName {
		if other := x.ids[r.CloudName]; other != "" && other != id {
			o, err := p.store.read(r.Type, other)
			switch {
			case err == nil && o.CloudName == r.CloudName:
				return provider.Object{}, fmt.Errorf("sim: rename %s %s to %q: the name is taken by %s", r.Type, id, r.CloudName, other)
			case err != nil && !errors.Is(err, fs.ErrNotExist):
				return provider.Object{}, err
			}
		}
		if err := x.set(r.CloudName, id); err != nil {
			return provider.Object{}, err
		}
		rec.CloudName = r.CloudName
	}
	if r.Name != "" {
		rec.Name = r.Name
	}
	if err := p.store.write(rec); err != nil {
		return provider.Object{}, err
	}
	return toObject(rec), nil
}
