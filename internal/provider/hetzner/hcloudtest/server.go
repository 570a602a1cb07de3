package hcloudtest

import (
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Server is a fake server. Status moves initializing → starting (after
// its create action) → running (after BootPolls reads); poweroff → off,
// poweron → starting → running.
type Server struct {
	ID                              int64
	Name, Status, ServerType, Image string
	Location, UserData, PublicIPv4  string
	DiskGB                          int // the primary disk: the type's at create, kept by change_type without upgrade_disk
	Labels                          map[string]string
	PrivateNet                      []PrivateNet
	SSHKeys                         []int64
	Created                         string
	bootLeft                        int
	bootDue                         time.Time
}

// PrivateNet is a server's (or load balancer's) address in a network.
type PrivateNet struct {
	Network int64
	IP      string
}

// ServerType is one server type as the API lists it (Hetzner Cloud API
// reference, Server Types).
type ServerType struct {
	ID                 int64
	Cores, Memory      int    // memory in GB
	Disk               int    // GB
	CPUType            string // shared, dedicated
	Architecture       string // x86, arm
	StorageType        string // local, network
	Locations          []string
	DeprecatedLocation map[string]bool // sold no more there
}

var (
	europe = []string{"fsn1", "nbg1", "hel1"}
	world  = []string{"fsn1", "nbg1", "hel1", "ash", "hil", "sin"}
)

// ServerTypes are the server types the fake sells, where, as the real API
// lists them: the CX line (cost-optimised, x86) and CAX (Ampere arm) only
// in Europe, CPX (AMD) and CCX (dedicated) in every location.
var ServerTypes = map[string]ServerType{
	"cx23":  {ID: 104, Cores: 2, Memory: 4, Disk: 40, CPUType: "shared", Architecture: "x86", StorageType: "local", Locations: europe},
	"cx33":  {ID: 105, Cores: 4, Memory: 8, Disk: 80, CPUType: "shared", Architecture: "x86", StorageType: "local", Locations: europe},
	"cx43":  {ID: 106, Cores: 8, Memory: 16, Disk: 160, CPUType: "shared", Architecture: "x86", StorageType: "local", Locations: europe},
	"cx53":  {ID: 107, Cores: 16, Memory: 32, Disk: 320, CPUType: "shared", Architecture: "x86", StorageType: "local", Locations: europe},
	"cpx11": {ID: 22, Cores: 2, Memory: 2, Disk: 40, CPUType: "shared", Architecture: "x86", StorageType: "local", Locations: world},
	"cpx21": {ID: 23, Cores: 3, Memory: 4, Disk: 80, CPUType: "shared", Architecture: "x86", StorageType: "local", Locations: world},
	"cpx22": {ID: 108, Cores: 2, Memory: 4, Disk: 80, CPUType: "shared", Architecture: "x86", StorageType: "local", Locations: world},
	"cpx31": {ID: 24, Cores: 4, Memory: 8, Disk: 160, CPUType: "shared", Architecture: "x86", StorageType: "local", Locations: world},
	"cpx32": {ID: 109, Cores: 4, Memory: 8, Disk: 160, CPUType: "shared", Architecture: "x86", StorageType: "local", Locations: world},
	"cpx41": {ID: 25, Cores: 8, Memory: 16, Disk: 240, CPUType: "shared", Architecture: "x86", StorageType: "local", Locations: world},
	"cpx42": {ID: 110, Cores: 8, Memory: 16, Disk: 320, CPUType: "shared", Architecture: "x86", StorageType: "local", Locations: world},
	"cax11": {ID: 45, Cores: 2, Memory: 4, Disk: 40, CPUType: "shared", Architecture: "arm", StorageType: "local", Locations: europe},
	"cax21": {ID: 93, Cores: 4, Memory: 8, Disk: 80, CPUType: "shared", Architecture: "arm", StorageType: "local", Locations: europe},
	"ccx13": {ID: 96, Cores: 2, Memory: 8, Disk: 80, CPUType: "dedicated", Architecture: "x86", StorageType: "local", Locations: world},
}

// sells reports whether server type t is sold in location loc.
func (t ServerType) sells(loc string) bool {
	return slices.Contains(t.Locations, loc) && !t.DeprecatedLocation[loc]
}

func (t ServerType) wire(name string) map[string]any {
	locs := make([]any, 0, len(t.Locations))
	prices := make([]any, 0, len(t.Locations))
	for _, n := range t.Locations {
		l, _ := locationByName(n)
		var dep any
		if t.DeprecatedLocation[n] {
			dep = map[string]any{"announced": "2025-01-01T00:00:00Z", "unavailable_after": "2025-04-01T00:00:00Z"}
		}
		locs = append(locs, map[string]any{"id": l.ID, "name": n, "available": !t.DeprecatedLocation[n], "recommended": !t.DeprecatedLocation[n], "deprecation": dep})
		prices = append(prices, map[string]any{"location": n, "price_hourly": map[string]any{"net": "0.0060", "gross": "0.0071"},
			"price_monthly": map[string]any{"net": "3.79", "gross": "4.51"}, "included_traffic": 21990232555520,
			"price_per_tb_traffic": map[string]any{"net": "1.00", "gross": "1.19"}})
	}
	return map[string]any{
		"id": t.ID, "name": name, "description": strings.ToUpper(name), "category": "regular_purpose", "cores": t.Cores, "memory": t.Memory,
		"disk": t.Disk, "storage_type": t.StorageType, "cpu_type": t.CPUType, "architecture": t.Architecture,
		"deprecated": false, "deprecation": nil, "prices": prices, "locations": locs,
	}
}

// Images are the system images the fake offers, by name.
var Images = map[string]int64{
	"debian-12": 114690387, "debian-13": 226351441, "ubuntu-22.04": 67794396, "ubuntu-24.04": 161547269,
	"rocky-9": 76766499, "alma-9": 76766511, "fedora-42": 224733214,
}

// imageName is the image a create names by ID (a JSON number, or a
// string of digits) or by name.
func imageName(v any) (string, bool) {
	var id int64
	switch x := v.(type) {
	case float64:
		id = int64(x)
	case string:
		if _, ok := Images[x]; ok {
			return x, true
		}
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return "", false
		}
		id = n
	default:
		return "", false
	}
	for name, i := range Images {
		if i == id {
			return name, true
		}
	}
	return "", false
}

// hostnameRE is RFC 1123: dot-separated labels of alphanumerics and '-'.
var hostnameRE = regexp.MustCompile(`^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$`)

func (c *Cloud) wireServer(s *Server) any {
	var fws []any
	ids := make([]int64, 0)
	for _, f := range c.st.Firewalls {
		if slices.Contains(f.AppliedTo, s.ID) {
			ids = append(ids, f.ID)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		fws = append(fws, map[string]any{"id": id, "status": "applied"})
	}
	if fws == nil {
		fws = []any{}
	}
	var ipv4 any
	if s.PublicIPv4 != "" {
		ipv4 = map[string]any{"id": s.ID + 1, "ip": s.PublicIPv4, "blocked": false, "dns_ptr": "static.example"}
	}
	priv := make([]any, 0, len(s.PrivateNet))
	for _, pn := range s.PrivateNet {
		priv = append(priv, map[string]any{"network": pn.Network, "ip": pn.IP, "alias_ips": []string{}, "mac_address": "86:00:00:00:00:01"})
	}
	t := ServerTypes[s.ServerType]
	disk := s.DiskGB
	if disk == 0 {
		disk = t.Disk
	}
	loc, _ := locationByName(s.Location)
	var lbs []int64
	for _, lb := range c.st.LoadBalancers {
		for _, tg := range lb.Targets {
			if sel, err := parseSelector(tg.Selector); err == nil && tg.Selector != "" && sel.matches(s.Labels) {
				lbs = append(lbs, lb.ID)
			}
		}
	}
	if lbs == nil {
		lbs = []int64{}
	}
	var image any
	if id, ok := Images[s.Image]; ok {
		image = map[string]any{"id": id, "type": "system", "status": "available", "name": s.Image, "description": s.Image, "os_flavor": "debian", "architecture": "x86"}
	}
	return map[string]any{
		"id": s.ID, "name": s.Name, "status": s.Status, "created": c.created(s.Created),
		"public_net":  map[string]any{"ipv4": ipv4, "ipv6": nil, "floating_ips": []int64{}, "firewalls": fws},
		"private_net": priv,
		"server_type": t.wire(s.ServerType),
		"location":    loc.wire(), "image": image, "labels": s.Labels, "volumes": []int64{}, "load_balancers": lbs,
		"protection": map[string]any{"delete": false, "rebuild": false}, "locked": c.busy[ref{s.ID, "server"}.key()] != 0,
		"rescue_enabled": false, "backup_window": nil, "iso": nil, "placement_group": nil,
		"included_traffic": 21990232555520, "primary_disk_size": disk,
	}
}

// bootDue is when a server starting now is running at the latest: a
// second per boot poll.
func (c *Cloud) bootDue() time.Time {
	return c.opts.Now().Add(time.Duration(c.opts.BootPolls) * time.Second)
}

// observe advances a starting server towards running by one read.
func (c *Cloud) observe(s *Server) {
	if s.Status == "starting" {
		s.bootLeft--
		if s.bootLeft <= 0 {
			s.Status = "running"
		}
	}
}

func (c *Cloud) serverKind() *kind[Server] {
	return &kind[Server]{
		c: c, what: "server", plural: "servers", taken: "server name is already used",
		all:     func() map[int64]*Server { return c.st.Servers },
		id:      func(s *Server) int64 { return s.ID },
		name:    func(s *Server) *string { return &s.Name },
		labels:  func(s *Server) *map[string]string { return &s.Labels },
		wire:    c.wireServer,
		observe: c.observe,
		rename: func(name string) *apiError {
			if !hostnameRE.MatchString(name) {
				return invalid("name", "must be a valid hostname")
			}
			return nil
		},
		remove: func(s *Server) (int, any, *apiError) {
			status, out, e := c.servers.deleteAction("delete_server", s, func() {
				// The firewalls still list the server for a while
				// (FirewallLag): deleting one meanwhile is resource_in_use.
				for _, f := range c.st.Firewalls {
					if slices.Contains(f.AppliedTo, s.ID) {
						c.leaving = append(c.leaving, leaving{firewall: f.ID, server: s.ID, due: c.opts.Now().Add(FirewallLag)})
					}
				}
			})
			if e == nil {
				s.Status = "deleting"
			}
			return status, out, e
		},
	}
}

// attach puts s into network n (in subnet ipRange, or the first subnet of
// its location's zone).
func (c *Cloud) attach(s *Server, n *Network, ipRange string) *apiError {
	ip, e := c.addressIn(n, ipRange, s.Location)
	if e != nil {
		return e
	}
	s.PrivateNet = append(s.PrivateNet, PrivateNet{Network: n.ID, IP: ip})
	return nil
}

func (c *Cloud) serverRoutes() {
	c.handle("GET /server_types", func(r *http.Request, _ []byte) (int, any, *apiError) {
		names := make([]string, 0, len(ServerTypes))
		for n := range ServerTypes {
			if q := r.URL.Query().Get("name"); q == "" || q == n {
				names = append(names, n)
			}
		}
		sort.Slice(names, func(i, j int) bool { return ServerTypes[names[i]].ID < ServerTypes[names[j]].ID })
		pg, meta, e := page(r, names)
		if e != nil {
			return 0, nil, e
		}
		out := make([]any, 0, len(pg))
		for _, n := range pg {
			out = append(out, ServerTypes[n].wire(n))
		}
		return 200, map[string]any{"server_types": out, "meta": meta}, nil
	})
	k := c.servers
	k.routes()
	c.handle("POST /servers", c.createServer)
	power := func(command, status string) handlerFunc {
		return k.action(command, func(s *Server, _ []byte) (func() *apiError, []ref, *apiError) {
			return func() *apiError {
				s.Status = status
				if status == "starting" {
					s.bootLeft, s.bootDue = c.opts.BootPolls, c.bootDue()
				}
				return nil
			}, nil, nil
		})
	}
	c.handle("POST /servers/{id}/actions/poweroff", power("stop_server", "off"))
	c.handle("POST /servers/{id}/actions/shutdown", power("shutdown_server", "off"))
	c.handle("POST /servers/{id}/actions/poweron", power("start_server", "starting"))
	c.handle("POST /servers/{id}/actions/change_type", k.action("change_server_type", func(s *Server, body []byte) (func() *apiError, []ref, *apiError) {
		var in struct {
			ServerType  string `json:"server_type"`
			UpgradeDisk bool   `json:"upgrade_disk"`
		}
		if e := decode(body, &in); e != nil {
			return nil, nil, e
		}
		to, ok := ServerTypes[in.ServerType]
		if !ok {
			return nil, nil, fail("invalid_server_type", "server type %q does not exist", in.ServerType)
		}
		if s.Status != "off" {
			return nil, nil, fail("server_not_stopped", "server %d must be off to change its type (it is %s)", s.ID, s.Status)
		}
		// Hetzner Cloud API reference, Server Actions: Change the Type of a
		// Server — the new type must be sold in the server's location, of
		// the same architecture and storage type, with a disk at least as
		// large as the server's (which stays as it is unless upgrade_disk).
		from := ServerTypes[s.ServerType]
		disk := s.DiskGB
		if disk == 0 {
			disk = from.Disk
		}
		switch {
		case !to.sells(s.Location):
			return nil, nil, fail("invalid_server_type", "server type %s is not available in location %s", in.ServerType, s.Location)
		case to.Architecture != from.Architecture:
			return nil, nil, fail("invalid_server_type", "server type %s has another architecture (%s) than the server (%s)", in.ServerType, to.Architecture, from.Architecture)
		case to.StorageType != from.StorageType:
			return nil, nil, fail("invalid_server_type", "server type %s has another storage type (%s) than the server (%s)", in.ServerType, to.StorageType, from.StorageType)
		case to.Disk < disk:
			return nil, nil, fail("invalid_server_type", "server type %s has a disk of %d GB, smaller than the server's %d GB", in.ServerType, to.Disk, disk)
		}
		return func() *apiError {
			s.ServerType, s.DiskGB = in.ServerType, disk
			if in.UpgradeDisk {
				s.DiskGB = to.Disk
			}
			return nil
		}, nil, nil
	}))
	c.handle("POST /servers/{id}/actions/attach_to_network", k.action("attach_to_network", func(s *Server, body []byte) (func() *apiError, []ref, *apiError) {
		var in struct {
			Network int64  `json:"network"`
			IPRange string `json:"ip_range"`
		}
		if e := decode(body, &in); e != nil {
			return nil, nil, e
		}
		n := c.st.Networks[in.Network]
		if n == nil {
			return nil, nil, notFound("network", in.Network)
		}
		if slices.ContainsFunc(s.PrivateNet, func(pn PrivateNet) bool { return pn.Network == n.ID }) {
			return nil, nil, fail("server_already_attached", "server %d is already attached to network %d", s.ID, n.ID)
		}
		if in.IPRange != "" {
			if _, e := subnetFor(n, in.IPRange, ""); e != nil {
				return nil, nil, e
			}
		}
		loc, _ := locationByName(s.Location)
		if e := c.subnetReady(n, in.IPRange, loc.NetworkZone); e != nil {
			return nil, nil, e
		}
		return func() *apiError { return c.attach(s, n, in.IPRange) }, []ref{{n.ID, "network"}}, nil
	}))
	c.handle("POST /servers/{id}/actions/detach_from_network", k.action("detach_from_network", func(s *Server, body []byte) (func() *apiError, []ref, *apiError) {
		var in struct {
			Network int64 `json:"network"`
		}
		if e := decode(body, &in); e != nil {
			return nil, nil, e
		}
		return func() *apiError {
			s.PrivateNet = slices.DeleteFunc(s.PrivateNet, func(pn PrivateNet) bool { return pn.Network == in.Network })
			return nil
		}, []ref{{in.Network, "network"}}, nil
	}))
}

func (c *Cloud) createServer(r *http.Request, body []byte) (int, any, *apiError) {
	var in struct {
		Name             string            `json:"name"`
		ServerType       any               `json:"server_type"`
		Image            any               `json:"image"`
		Location         string            `json:"location"`
		SSHKeys          []any             `json:"ssh_keys"`
		UserData         string            `json:"user_data"`
		StartAfterCreate *bool             `json:"start_after_create"`
		Labels           map[string]string `json:"labels"`
		Networks         []int64           `json:"networks"`
		Firewalls        []struct {
			Firewall int64 `json:"firewall"`
		} `json:"firewalls"`
		PublicNet *struct {
			EnableIPv4 bool `json:"enable_ipv4"`
			EnableIPv6 bool `json:"enable_ipv6"`
		} `json:"public_net"`
	}
	if e := decode(body, &in); e != nil {
		return 0, nil, e
	}
	if !hostnameRE.MatchString(in.Name) || len(in.Name) > 63 {
		return 0, nil, invalid("name", "must be a valid hostname (RFC 1123)")
	}
	typ, _ := in.ServerType.(string)
	st, ok := ServerTypes[typ]
	if !ok {
		return 0, nil, invalid("server_type", "server type %v does not exist", in.ServerType)
	}
	// Hetzner Cloud API reference, Servers: Create a Server — image is
	// an image ID or name.
	img, ok := imageName(in.Image)
	if !ok {
		return 0, nil, invalid("image", "image %v does not exist", in.Image)
	}
	loc := in.Location
	if loc == "" {
		loc = "fsn1"
	}
	if _, ok := locationByName(loc); !ok {
		return 0, nil, invalid("location", "location %q does not exist", in.Location)
	}
	// Hetzner Cloud API reference, Server Types: a type is sold only in
	// the locations it lists as available.
	if !st.sells(loc) {
		return 0, nil, invalid("server_type", "server type %s is not available in location %s", typ, loc)
	}
	var keys []int64
	for _, k := range in.SSHKeys {
		id, ok := k.(float64)
		if !ok || c.st.SSHKeys[int64(id)] == nil {
			return 0, nil, invalid("ssh_keys", "SSH key %v not found", k)
		}
		keys = append(keys, int64(id))
	}
	if len(in.UserData) > 32*1024 {
		return 0, nil, invalid("user_data", "at most 32 KiB")
	}
	if e := checkLabels(in.Labels); e != nil {
		return 0, nil, e
	}
	for _, nid := range in.Networks {
		if c.st.Networks[nid] == nil {
			return 0, nil, invalid("networks", "network %d not found", nid)
		}
	}
	for _, f := range in.Firewalls {
		if c.st.Firewalls[f.Firewall] == nil {
			return 0, nil, invalid("firewalls", "firewall %d not found", f.Firewall)
		}
	}
	if len(in.Firewalls) > MaxFirewallsPerServer {
		return 0, nil, fail("resource_limit_exceeded", "a server takes at most %d firewalls", MaxFirewallsPerServer)
	}
	if e := c.servers.unique(in.Name, 0); e != nil {
		return 0, nil, e
	}
	s := &Server{
		ID: c.id(), Name: in.Name, Status: "initializing", ServerType: typ, DiskGB: st.Disk, Image: img, Location: loc,
		UserData: in.UserData, Labels: copyLabels(in.Labels), SSHKeys: keys, Created: c.timestamp(),
	}
	if in.PublicNet == nil || in.PublicNet.EnableIPv4 {
		s.PublicIPv4 = c.publicIP()
	}
	c.st.Servers[s.ID] = s
	start := in.StartAfterCreate == nil || *in.StartAfterCreate
	a, e := c.start("create_server", func() *apiError {
		for _, nid := range in.Networks {
			if n := c.st.Networks[nid]; n != nil {
				if e := c.attach(s, n, ""); e != nil {
					return e
				}
			}
		}
		for _, f := range in.Firewalls {
			if fw := c.st.Firewalls[f.Firewall]; fw != nil && !slices.Contains(fw.AppliedTo, s.ID) {
				fw.AppliedTo = append(fw.AppliedTo, s.ID)
			}
		}
		s.Status = "off"
		if start {
			s.Status, s.bootLeft, s.bootDue = "starting", c.opts.BootPolls, c.bootDue()
		}
		return nil
	}, ref{s.ID, "server"})
	if e != nil {
		return 0, nil, e
	}
	var password any
	if len(keys) == 0 {
		password = "fake-root-password"
	}
	return 201, map[string]any{"server": c.wireServer(s), "action": a.wire(), "next_actions": []any{}, "root_password": password}, nil
}
