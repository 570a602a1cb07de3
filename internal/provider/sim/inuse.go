package sim

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/kinds"
)

// users are, per type, the properties of other types that refer to an
// object of it and keep the simulated cloud from deleting it, as real
// clouds do: a security group a machine, database or load balancer is in
// (EC2's DependencyViolation, Hetzner's resource_in_use), a subnet a
// machine is in.
var users = sync.OnceValue(func() map[string][]provider.Use {
	return map[string][]provider.Use{
		"SecurityGroup": {{Type: "Vm", Property: "securityGroups"}, {Type: "Database", Property: "securityGroups"}, {Type: "LoadBalancer", Property: "securityGroups"}},
		"Subnet":        {{Type: "Vm", Property: "subnet"}},
	}
})

// inUse refuses to delete rec while another object refers to it.
func (p *Provider) inUse(rec *record) error {
	for _, u := range users()[rec.Type] {
		entries, err := os.ReadDir(filepath.Join(p.store.dir, u.Type))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("sim: list %s: %w", u.Type, err)
		}
		for _, e := range entries {
			id, ok := strings.CutSuffix(e.Name(), ".json")
			if !ok || !validID(id) {
				continue
			}
			other, err := p.store.read(u.Type, id)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return err
			}
			if provider.RefersTo(other.Properties[u.Property], rec.ID) {
				return fmt.Errorf("sim: %s %s (%s) is in use by %s %s (%s); detach it first", rec.Type, rec.ID, rec.CloudName, u.Type, other.ID, other.CloudName)
			}
		}
	}
	return nil
}

// checkChange is the simulator's check of a change (kinds.Planner.Check):
// what the simulated cloud does not delete while used (users) is
// replaced by making its replacement first, where the two can exist side
// by side: any security group; a subnet whose replacement is in another
// network or does not overlap it.
func (p *Provider) checkChange(_ context.Context, req kinds.Change) (provider.ChangePlan, error) {
	switch req.Type {
	case "SecurityGroup":
		return provider.ChangePlan{CreateBeforeDestroy: true}, nil
	case "Subnet":
		return provider.ChangePlan{CreateBeforeDestroy: sideBySide(req.Prior, req.Properties)}, nil
	}
	return provider.ChangePlan{}, nil
}

// sideBySide reports whether a subnet with props can exist next to one
// with old: in another network, or not overlapping it.
func sideBySide(old, props map[string]any) bool {
	if fmt.Sprint(old["network"]) != fmt.Sprint(props["network"]) {
		return true
	}
	a, err1 := netip.ParsePrefix(fmt.Sprint(old["cidr"]))
	b, err2 := netip.ParsePrefix(fmt.Sprint(props["cidr"]))
	return err1 == nil && err2 == nil && !a.Overlaps(b)
}
