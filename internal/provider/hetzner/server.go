package hetzner

import (
	"context"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/property"
)

// serverKind maps Vm to a server in the configured location. size small,
// medium or large is the first of its server types (sizes) the location
// sells — cx23, cx33, cx43 in Europe, cpx22, cpx32, cpx42 in ash, hil and
// sin — or any server type name (cpx21, cax11, …); image is a Hetzner
// image name (debian-12, ubuntu-24.04, …) or an image ID. The size and image as written, the SSH keys (which the API
// does not report) and which of network/subnet were asked for are kept in
// labels so Read reports them. With a subnet the server is created
// stopped, attached to the subnet's range, then started; with only a
// network it is attached at creation. Create waits until it is running.
// A size change is a rescale: power off → change type (disk kept, so it
// can shrink again) → power on.
type serverKind struct{ p *Provider }

// sizes are the server types of each size, in order of preference: a
// size is the first of them its location sells (Hetzner Cloud API
// reference, Server Types: locations). 2, 4 and 8 shared x86 vCPUs with
// 4, 8 and 16 GB: the CX line (cost-optimised) where it is sold, which is
// Europe only, else the CPX line (sold in every location).
var sizes = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"small":  {"cx23", "cpx22", "cpx21"},
		"medium": {"cx33", "cpx32", "cpx31"},
		"large":  {"cx43", "cpx42", "cpx41"},
	}
})

var serverTypeRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[a-z]+[0-9]+[a-z]*$`)
})

// serverTypes lists the server types size may be: a size's (sizes), or
// the server type it names.
func serverTypes(size string) ([]string, error) {
	if ts, ok := sizes()[size]; ok {
		return ts, nil
	}
	if serverTypeRE().MatchString(size) {
		return []string{size}, nil
	}
	return nil, fmt.Errorf("unknown size %q (use small, medium, large or a Hetzner server type such as cx23 or cpx22)", size)
}

// isSize reports whether server type typ is what size means somewhere.
func isSize(size, typ string) bool {
	ts, err := serverTypes(size)
	return err == nil && slices.Contains(ts, typ)
}

func imageRef(image string) *hcloud.Image {
	if n, err := strconv.ParseInt(image, 10, 64); err == nil {
		return &hcloud.Image{ID: n}
	}
	return &hcloud.Image{Name: image}
}

// attachment returns the network the Vm belongs in and, with a subnet,
// the subnet's range; and the kyku-attach label value.
func attachment(r provider.Resource) (int64, *net.IPNet, string, error) {
	var netID int64
	var ipRange *net.IPNet
	var asked []string
	if _, ok := r.Properties["network"]; ok {
		n, err := refID(r, "network")
		if err != nil {
			return 0, nil, "", err
		}
		netID = n
		asked = append(asked, "network")
	}
	if s := property.String(r.Properties, "subnet"); s != "" {
		n, ipn, err := parseSubnetID(s)
		if err != nil {
			return 0, nil, "", fmt.Errorf("property subnet: %q is not a Hetzner subnet ID (<network ID>/<cidr>)", s)
		}
		if netID != 0 && n != netID {
			return 0, nil, "", fmt.Errorf("subnet %s is not in network %d", s, netID)
		}
		netID, ipRange = n, ipn
		asked = append(asked, "subnet")
	}
	return netID, ipRange, strings.Join(asked, "."), nil
}

func serverLabels(r provider.Resource, size, image, attach string, keys []int64) map[string]string {
	extra := map[string]string{labelSize: size, labelImage: image}
	if attach != "" {
		extra[labelAttach] = attach
	}
	for _, id := range keys {
		extra[keySSH+strconv.FormatInt(id, 10)] = ""
	}
	return wantLabels(r, extra)
}

func (p *Provider) servers() api[hcloud.Server] {
	return api[hcloud.Server]{
		p: p, what: "server", get: p.c.Server.GetByID,
		list: func(ctx context.Context, name, selector string) ([]*hcloud.Server, *hcloud.Response, error) {
			return p.c.Server.List(ctx, hcloud.ServerListOpts{Name: name, ListOpts: hcloud.ListOpts{LabelSelector: selector}})
		},
		labels: func(s *hcloud.Server) map[string]string { return s.Labels },
		relabel: func(ctx context.Context, s *hcloud.Server, labels map[string]string) (*hcloud.Server, *hcloud.Response, error) {
			return p.c.Server.Update(ctx, s, hcloud.ServerUpdateOpts{Labels: labels})
		},
		rename: func(ctx context.Context, s *hcloud.Server, name string, labels map[string]string) (*hcloud.Server, *hcloud.Response, error) {
			return p.c.Server.Update(ctx, s, hcloud.ServerUpdateOpts{Name: name, Labels: labels})
		},
		del: func(ctx context.Context, s *hcloud.Server) (*hcloud.Action, *hcloud.Response, error) {
			res, r, err := p.c.Server.DeleteWithResult(ctx, s)
			if err != nil {
				return nil, r, err
			}
			return res.Action, r, nil
		},
		object: func(ctx context.Context, s *hcloud.Server) (provider.Object, error) {
			return serverKind{p}.object(ctx, s, nil)
		},
	}
}

// object reports a server in Kyku's vocabulary. nets caches networks by
// ID (bulk reads fill it); a missing one is read.
func (k serverKind) object(ctx context.Context, s *hcloud.Server, nets map[int64]*hcloud.Network) (provider.Object, error) {
	props := map[string]any{}
	outputs := map[string]any{"publicIp": "", "privateIp": ""}
	typ := ""
	if s.ServerType != nil {
		typ = s.ServerType.Name
	}
	props["size"] = typ
	if alias := s.Labels[labelSize]; alias != "" && isSize(alias, typ) {
		props["size"] = alias
	}
	switch {
	case s.Labels[labelImage] != "":
		props["image"] = s.Labels[labelImage]
	case s.Image != nil && s.Image.Name != "":
		props["image"] = s.Image.Name
	case s.Image != nil:
		props["image"] = strconv.FormatInt(s.Image.ID, 10)
	}
	var fws, keys []int64
	for _, f := range s.PublicNet.Firewalls {
		fws = append(fws, f.Firewall.ID)
	}
	for l := range s.Labels {
		if id, ok := strings.CutPrefix(l, keySSH); ok {
			if n, err := strconv.ParseInt(id, 10, 64); err == nil {
				keys = append(keys, n)
			}
		}
	}
	if l := idList(fws); l != nil {
		props["securityGroups"] = l
	}
	if l := idList(keys); l != nil {
		props["sshKeys"] = l
	}
	if !s.PublicNet.IPv4.IsUnspecified() {
		outputs["publicIp"] = s.PublicNet.IPv4.IP.String()
	}
	if len(s.PrivateNet) > 0 && s.PrivateNet[0].Network != nil {
		pn := s.PrivateNet[0]
		outputs["privateIp"] = pn.IP.String()
		asked := s.Labels[labelAttach]
		if strings.Contains(asked, "network") {
			props["network"] = strconv.FormatInt(pn.Network.ID, 10)
		}
		if strings.Contains(asked, "subnet") {
			n := nets[pn.Network.ID]
			if n == nil {
				var err error
				if n, err = k.p.networks().byID(ctx, pn.Network.ID); err != nil && !provider.IsNotFound(err) {
					return provider.Object{}, err
				}
			}
			if n != nil {
				for _, sn := range n.Subnets {
					if sn.IPRange != nil && sn.IPRange.Contains(pn.IP) {
						props["subnet"] = subnetID(n.ID, sn.IPRange.String())
					}
				}
			}
		}
	}
	return provider.NewObject(strconv.FormatInt(s.ID, 10), s.Name, property.SetTags(props, s.Labels, isKykuLabel), outputs), nil
}

// serverSpec is what a Vm asks of its server, read from its properties.
type serverSpec struct {
	size      string // the size as written (default small)
	keys, fws []int64
	netID     int64
	ipRange   *net.IPNet
	attach    string // the kyku-attach label
}

func specOf(r provider.Resource) (serverSpec, error) {
	sp := serverSpec{size: property.StringOr(r.Properties, "size", "small")}
	var err error
	if _, err = serverTypes(sp.size); err != nil {
		return sp, err
	}
	if sp.keys, err = refIDs(r, "sshKeys"); err != nil {
		return sp, err
	}
	if sp.fws, err = refIDs(r, "securityGroups"); err != nil {
		return sp, err
	}
	sp.netID, sp.ipRange, sp.attach, err = attachment(r)
	return sp, err
}

func (k serverKind) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	sp, err := specOf(r)
	if err != nil {
		return provider.Object{}, err
	}
	image := property.String(r.Properties, "image")
	if image == "" {
		return provider.Object{}, fmt.Errorf("property image is required")
	}
	typ, err := k.p.typeFor(ctx, sp.size)
	if err != nil {
		return provider.Object{}, err
	}
	opts := hcloud.ServerCreateOpts{
		Name: r.CloudName, ServerType: &hcloud.ServerType{Name: typ}, Image: imageRef(image),
		Location: &hcloud.Location{Name: k.p.opts.Location}, UserData: property.String(r.Properties, "userData"),
		Labels: serverLabels(r, sp.size, image, sp.attach, sp.keys), StartAfterCreate: hcloud.Ptr(sp.ipRange == nil),
	}
	for _, id := range sp.keys {
		opts.SSHKeys = append(opts.SSHKeys, &hcloud.SSHKey{ID: id})
	}
	for _, id := range sp.fws {
		opts.Firewalls = append(opts.Firewalls, &hcloud.ServerCreateFirewall{Firewall: hcloud.Firewall{ID: id}})
	}
	if sp.netID != 0 && sp.ipRange == nil {
		opts.Networks = []*hcloud.Network{{ID: sp.netID}}
	}
	s, err := k.p.servers().ensure(ctx, r.CloudName, func(ctx context.Context) (*hcloud.Server, []*hcloud.Action, *hcloud.Response, error) {
		res, resp, err := k.p.c.Server.Create(ctx, opts)
		return res.Server, append([]*hcloud.Action{res.Action}, res.NextActions...), resp, err
	})
	if err != nil {
		return provider.Object{}, err
	}
	// Finish what this or an interrupted earlier create left undone.
	if err := k.attach(ctx, s.ID, sp.netID, sp.ipRange); err != nil {
		return provider.Object{}, err
	}
	if err := k.start(ctx, s.ID); err != nil {
		return provider.Object{}, err
	}
	return k.Read(ctx, strconv.FormatInt(s.ID, 10))
}

// attach makes server id a member of network netID (in ipRange when
// given), detaching it from another network first; netID 0 leaves it
// alone.
func (k serverKind) attach(ctx context.Context, id, netID int64, ipRange *net.IPNet) error {
	if netID == 0 {
		return nil
	}
	s, err := k.p.servers().byID(ctx, id)
	if err != nil {
		return err
	}
	for _, pn := range s.PrivateNet {
		if pn.Network == nil {
			continue
		}
		if pn.Network.ID == netID && (ipRange == nil || ipRange.Contains(pn.IP)) {
			return nil
		}
		err := k.p.act(ctx, "detach server from network", func(ctx context.Context) ([]*hcloud.Action, *hcloud.Response, error) {
			return one(k.p.c.Server.DetachFromNetwork(ctx, s, hcloud.ServerDetachFromNetworkOpts{Network: pn.Network}))
		})
		if err != nil {
			return err
		}
	}
	// no_subnet_available right after the subnet was added is the API
	// catching up: retried (bounded).
	err = k.p.actChecked(ctx, "attach server to network", retrying(hcloud.ErrorCodeNoSubnetAvailable), func(ctx context.Context) ([]*hcloud.Action, *hcloud.Response, error) {
		return one(k.p.c.Server.AttachToNetwork(ctx, s, hcloud.ServerAttachToNetworkOpts{Network: &hcloud.Network{ID: netID}, IPRange: ipRange}))
	})
	if !isCode(err, hcloud.ErrorCodeServerAlreadyAttached) {
		return err
	}
	// A retried attach whose first answer was lost: wait until it shows.
	return k.p.poll(ctx, fmt.Sprintf("server %d in network %d", id, netID), func(ctx context.Context) (bool, error) {
		s, err := k.p.servers().byID(ctx, id)
		if err != nil {
			return false, err
		}
		for _, pn := range s.PrivateNet {
			if pn.Network != nil && pn.Network.ID == netID {
				return true, nil
			}
		}
		return false, nil
	})
}

// start powers the server on when it is off and waits until it runs.
func (k serverKind) start(ctx context.Context, id int64) error {
	return k.p.poll(ctx, fmt.Sprintf("server %d to run", id), func(ctx context.Context) (bool, error) {
		s, err := k.p.servers().byID(ctx, id)
		if err != nil {
			return false, err
		}
		switch s.Status {
		case hcloud.ServerStatusRunning:
			return true, nil
		case hcloud.ServerStatusOff:
			return false, k.p.act(ctx, "power on server", func(ctx context.Context) ([]*hcloud.Action, *hcloud.Response, error) {
				return one(k.p.c.Server.Poweron(ctx, s))
			})
		case hcloud.ServerStatusDeleting:
			return false, fmt.Errorf("server %d is being deleted", id)
		}
		return false, nil // initializing, starting, …
	})
}

func (k serverKind) Read(ctx context.Context, id string) (provider.Object, error) {
	return k.p.servers().read(ctx, id)
}

func (k serverKind) Update(ctx context.Context, id string, r provider.Resource, cur provider.Object) (provider.Object, error) {
	sid, err := parseID(id)
	if err != nil {
		return provider.Object{}, err
	}
	sp, err := specOf(r)
	if err != nil {
		return provider.Object{}, err
	}
	curKeys, _ := refIDs(provider.Resource{Properties: cur.Properties}, "sshKeys")
	if add, remove := property.Diff(curKeys, sp.keys); len(add)+len(remove) > 0 {
		return provider.Object{}, fmt.Errorf("property sshKeys: Hetzner installs SSH keys only when it creates a server; replace the server to change them")
	}
	if err := k.attach(ctx, sid, sp.netID, sp.ipRange); err != nil {
		return provider.Object{}, err
	}
	s, err := k.p.servers().byID(ctx, sid)
	if err != nil {
		return provider.Object{}, err
	}
	if s.ServerType == nil || !isSize(sp.size, s.ServerType.Name) {
		if err := k.rescale(ctx, s, sp.size); err != nil {
			return provider.Object{}, err
		}
	}
	var have []int64
	for _, f := range s.PublicNet.Firewalls {
		have = append(have, f.Firewall.ID)
	}
	add, remove := property.Diff(have, sp.fws)
	res := []hcloud.FirewallResource{{Type: hcloud.FirewallResourceTypeServer, Server: &hcloud.FirewallResourceServer{ID: sid}}}
	for _, fid := range add {
		err := k.p.act(ctx, fmt.Sprintf("apply firewall %d", fid), func(ctx context.Context) ([]*hcloud.Action, *hcloud.Response, error) {
			return k.p.c.Firewall.ApplyResources(ctx, &hcloud.Firewall{ID: fid}, res)
		}, hcloud.ErrorCodeFirewallAlreadyApplied)
		if err != nil {
			return provider.Object{}, err
		}
	}
	for _, fid := range remove {
		err := k.p.act(ctx, fmt.Sprintf("remove firewall %d", fid), func(ctx context.Context) ([]*hcloud.Action, *hcloud.Response, error) {
			return k.p.c.Firewall.RemoveResources(ctx, &hcloud.Firewall{ID: fid}, res)
		})
		if err != nil {
			return provider.Object{}, err
		}
	}
	_, err = k.p.servers().setLabels(ctx, sid, func(have map[string]string) map[string]string {
		return keep(serverLabels(r, sp.size, have[labelImage], sp.attach, sp.keys), have, keyTG)
	})
	if err != nil {
		return provider.Object{}, err
	}
	return k.Read(ctx, id)
}

// rescale changes the server type to the one size means: power off,
// change type (keeping the disk so it can shrink again), power on, wait
// until running. A change the API would refuse (another architecture or
// storage type, a smaller disk, a type the location does not sell) is
// refused before the server is powered off.
func (k serverKind) rescale(ctx context.Context, s *hcloud.Server, size string) error {
	typ, err := k.p.typeFor(ctx, size)
	if err != nil {
		return err
	}
	cat, err := k.p.catalog(ctx)
	if err != nil {
		return err
	}
	if s.ServerType == nil {
		return fmt.Errorf("server %d reports no server type", s.ID)
	}
	if from, to := cat.types[s.ServerType.Name], cat.types[typ]; from != nil && to != nil {
		disk := s.PrimaryDiskSize
		if disk == 0 {
			disk = from.Disk
		}
		if reason := resizeRefusal(from, to, disk); reason != "" {
			return fmt.Errorf("property size: %s: replace the server", reason)
		}
	}
	if s.Status != hcloud.ServerStatusOff {
		err := k.p.act(ctx, "power off server", func(ctx context.Context) ([]*hcloud.Action, *hcloud.Response, error) {
			return one(k.p.c.Server.Poweroff(ctx, s))
		})
		if err != nil {
			return err
		}
	}
	err = k.p.act(ctx, "change server type to "+typ, func(ctx context.Context) ([]*hcloud.Action, *hcloud.Response, error) {
		return one(k.p.c.Server.ChangeType(ctx, s, hcloud.ServerChangeTypeOpts{ServerType: &hcloud.ServerType{Name: typ}, UpgradeDisk: false}))
	})
	if err != nil {
		// Never leave the server off because the new type was refused.
		if serr := k.start(ctx, s.ID); serr != nil {
			return fmt.Errorf("%w (and starting it again failed: %v)", err, serr)
		}
		return err
	}
	return k.start(ctx, s.ID)
}

func (k serverKind) Delete(ctx context.Context, id string) error {
	return k.p.servers().remove(ctx, id)
}

func (k serverKind) Lookup(ctx context.Context, name string) (provider.Object, error) {
	return k.p.servers().lookup(ctx, name)
}
