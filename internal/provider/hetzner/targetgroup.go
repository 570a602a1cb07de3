package hetzner

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/property"
)

// tgKind maps TargetGroup to what the seed says it is on Hetzner: a label.
// There is no API object and no idempotency lookup; the group is the label
// kyku-tg/<cloud name> on its member servers, its value "<protocol>-<port>"
// (e.g. "http-80"). The provider ID is that label key, which is also the
// label selector a load balancer targets. Read lists the servers carrying
// it, so a group with no member left reads as gone (hence at least one
// target is required; CheckResource says so at plan time). A change of
// port or protocol is carried to the services of the load balancers that
// target the group.
type tgKind struct{ p *Provider }

func tgValue(r provider.Resource) string {
	proto := property.StringOr(r.Properties, "protocol", "http")
	return fmt.Sprintf("%s-%d", proto, property.Int(r.Properties, "port", 80))
}

func parseTGValue(v string) (proto string, port int, ok bool) {
	proto, p, found := strings.Cut(v, "-")
	n, err := strconv.Atoi(p)
	return proto, n, found && err == nil
}

// members lists the servers carrying the group's label, by ID.
func (k tgKind) members(ctx context.Context, id string) ([]*hcloud.Server, error) {
	ss, _, err := all(ctx, k.p, "list target group members", func(ctx context.Context, o hcloud.ListOpts) ([]*hcloud.Server, *hcloud.Response, error) {
		return k.p.c.Server.List(ctx, hcloud.ServerListOpts{ListOpts: o})
	}, id)
	sortServers(ss)
	return ss, err
}

// tgObject builds the group from its members (sorted by ID); ok is false
// when it has none.
func tgObject(id string, members []*hcloud.Server) (provider.Object, bool) {
	if len(members) == 0 {
		return provider.Object{}, false
	}
	proto, port, _ := parseTGValue(members[0].Labels[id])
	var ids []int64
	for _, s := range members {
		ids = append(ids, s.ID)
	}
	props := map[string]any{"protocol": proto, "port": float64(port), "targets": idList(ids)}
	name, _ := parseTGID(id)
	return provider.NewObject(id, name, props, nil), true
}

// label sets (value != "") or removes the group's label on server sid.
func (k tgKind) label(ctx context.Context, sid int64, id, value string) error {
	_, err := k.p.servers().setLabels(ctx, sid, func(have map[string]string) map[string]string {
		want := keep(map[string]string{}, have, "")
		if value == "" {
			delete(want, id)
		} else {
			want[id] = value
		}
		return want
	})
	return err
}

// tgTargets reads the group's targets: server IDs, at least one.
func tgTargets(r provider.Resource) ([]int64, error) {
	targets, err := refIDs(r, "targets")
	if err == nil && len(targets) == 0 {
		err = fmt.Errorf("a target group on hetzner needs at least one target (it exists as a label on its servers)")
	}
	return targets, err
}

func (k tgKind) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	id, err := tgID(r.CloudName)
	if err != nil {
		return provider.Object{}, err
	}
	targets, err := tgTargets(r)
	if err != nil {
		return provider.Object{}, err
	}
	return k.apply(ctx, id, r, targets)
}

// apply labels the targets, unlabels former members, and returns the group.
func (k tgKind) apply(ctx context.Context, id string, r provider.Resource, targets []int64) (provider.Object, error) {
	want := tgValue(r)
	for _, sid := range targets {
		if err := k.label(ctx, sid, id, want); err != nil {
			return provider.Object{}, fmt.Errorf("target %d: %w", sid, err)
		}
	}
	members, err := k.members(ctx, id)
	if err != nil {
		return provider.Object{}, err
	}
	keepIDs := map[int64]bool{}
	for _, sid := range targets {
		keepIDs[sid] = true
	}
	var kept []*hcloud.Server
	for _, s := range members {
		if keepIDs[s.ID] {
			kept = append(kept, s)
			continue
		}
		if err := k.label(ctx, s.ID, id, ""); err != nil && !provider.IsNotFound(err) {
			return provider.Object{}, err
		}
	}
	obj, ok := tgObject(id, kept)
	if !ok {
		return provider.Object{}, provider.NotFound("target group " + id)
	}
	return obj, nil
}

func (k tgKind) Read(ctx context.Context, id string) (provider.Object, error) {
	if _, err := parseTGID(id); err != nil {
		return provider.Object{}, err
	}
	members, err := k.members(ctx, id)
	if err != nil {
		return provider.Object{}, err
	}
	obj, ok := tgObject(id, members)
	if !ok {
		return provider.Object{}, provider.NotFound("target group " + id + " (no server carries its label)")
	}
	return obj, nil
}

func (k tgKind) Update(ctx context.Context, id string, r provider.Resource, cur provider.Object) (provider.Object, error) {
	if _, err := parseTGID(id); err != nil {
		return provider.Object{}, err
	}
	targets, err := tgTargets(r)
	if err != nil {
		return provider.Object{}, err
	}
	obj, err := k.apply(ctx, id, r, targets)
	if err != nil {
		return provider.Object{}, err
	}
	if property.String(cur.Properties, "protocol") != property.String(obj.Properties, "protocol") || property.Int(cur.Properties, "port", 0) != property.Int(obj.Properties, "port", 0) {
		if err := lbKind(k).retarget(ctx, id, property.String(obj.Properties, "protocol"), property.Int(obj.Properties, "port", 80)); err != nil {
			return provider.Object{}, err
		}
	}
	return obj, nil
}

func (k tgKind) Delete(ctx context.Context, id string) error {
	if _, err := parseTGID(id); err != nil {
		return err
	}
	members, err := k.members(ctx, id)
	if err != nil {
		return err
	}
	if len(members) == 0 {
		return provider.NotFound("target group " + id)
	}
	for _, s := range members {
		if err := k.label(ctx, s.ID, id, ""); err != nil && !provider.IsNotFound(err) {
			return err
		}
	}
	return nil
}

func (k tgKind) Lookup(ctx context.Context, name string) (provider.Object, error) {
	id, err := tgID(name)
	if err != nil {
		return provider.Object{}, provider.NotFound("target group " + name)
	}
	return k.Read(ctx, id)
}
