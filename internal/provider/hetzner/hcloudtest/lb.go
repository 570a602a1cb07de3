package hcloudtest

import (
	"net/http"
	"slices"
)

// LoadBalancer is a fake load balancer.
type LoadBalancer struct {
	ID                   int64
	Name, Type, Location string
	PublicIPv4           string
	Labels               map[string]string
	Network              int64 // 0: not attached
	PrivateIP            string
	Services             []Service
	Targets              []Target
	Created              string
}

// Service is one listener of a load balancer.
type Service struct {
	Protocol                    string
	ListenPort, DestinationPort int
}

// Target is one target: a label selector or a server.
type Target struct {
	Type         string // "label_selector" or "server"
	Selector     string
	Server       int64
	UsePrivateIP bool
}

var lbTypes = map[string]int64{"lb11": 1, "lb21": 2, "lb31": 3}

type serviceIn struct {
	Protocol        string `json:"protocol"`
	ListenPort      *int   `json:"listen_port"`
	DestinationPort *int   `json:"destination_port"`
	HTTP            *struct {
		Certificates []int64 `json:"certificates"`
	} `json:"http"`
}

type targetIn struct {
	Type          string `json:"type"`
	LabelSelector *struct {
		Selector string `json:"selector"`
	} `json:"label_selector"`
	Server *struct {
		ID int64 `json:"id"`
	} `json:"server"`
	UsePrivateIP *bool `json:"use_private_ip"`
}

func (c *Cloud) toService(in serviceIn) (Service, *apiError) {
	s := Service{Protocol: in.Protocol, ListenPort: 80, DestinationPort: 80}
	switch in.Protocol {
	case "tcp":
		if in.ListenPort == nil || in.DestinationPort == nil {
			return s, invalid("listen_port", "tcp services need listen_port and destination_port")
		}
	case "http":
	case "https":
		if in.HTTP == nil || len(in.HTTP.Certificates) == 0 {
			return s, invalid("http.certificates", "https services need at least one certificate")
		}
		s.ListenPort, s.DestinationPort = 443, 80
	default:
		return s, invalid("protocol", "must be tcp, http or https")
	}
	if in.ListenPort != nil {
		s.ListenPort = *in.ListenPort
	}
	if in.DestinationPort != nil {
		s.DestinationPort = *in.DestinationPort
	}
	if s.ListenPort < 1 || s.ListenPort > 65535 || s.DestinationPort < 1 || s.DestinationPort > 65535 {
		return s, invalid("listen_port", "ports must be between 1 and 65535")
	}
	return s, nil
}

func (c *Cloud) toTarget(lb *LoadBalancer, in targetIn) (Target, *apiError) {
	t := Target{Type: in.Type, UsePrivateIP: in.UsePrivateIP != nil && *in.UsePrivateIP}
	switch in.Type {
	case "label_selector":
		if in.LabelSelector == nil {
			return t, invalid("label_selector", "is required")
		}
		if _, err := parseSelector(in.LabelSelector.Selector); err != nil || in.LabelSelector.Selector == "" {
			return t, invalid("label_selector.selector", "invalid selector %q", in.LabelSelector.Selector)
		}
		t.Selector = in.LabelSelector.Selector
	case "server":
		if in.Server == nil || c.st.Servers[in.Server.ID] == nil {
			return t, invalid("server", "server not found")
		}
		t.Server = in.Server.ID
	default:
		return t, invalid("type", "must be server, label_selector or ip")
	}
	if t.UsePrivateIP && lb.Network == 0 {
		return t, fail("load_balancer_not_attached_to_network", "use_private_ip needs the load balancer in a network")
	}
	for _, o := range lb.Targets {
		if o.Type == t.Type && o.Selector == t.Selector && o.Server == t.Server {
			return t, fail("target_already_defined", "target already defined")
		}
	}
	return t, nil
}

func (c *Cloud) wireLB(lb *LoadBalancer) any {
	services := make([]any, 0, len(lb.Services))
	for _, s := range lb.Services {
		var httpBlock any
		if s.Protocol != "tcp" {
			httpBlock = map[string]any{"cookie_name": "HCLBSTICKY", "cookie_lifetime": 300, "certificates": []int64{}, "redirect_http": false, "sticky_sessions": false, "timeout_idle": 60}
		}
		services = append(services, map[string]any{
			"protocol": s.Protocol, "listen_port": s.ListenPort, "destination_port": s.DestinationPort, "proxyprotocol": false,
			"http": httpBlock, "health_check": map[string]any{"protocol": "tcp", "port": s.DestinationPort, "interval": 15, "timeout": 10, "retries": 3, "http": nil},
		})
	}
	targets := make([]any, 0, len(lb.Targets))
	for _, t := range lb.Targets {
		w := map[string]any{"type": t.Type, "use_private_ip": t.UsePrivateIP, "health_status": []any{}}
		if t.Type == "label_selector" {
			w["label_selector"] = map[string]any{"selector": t.Selector}
			sel, _ := parseSelector(t.Selector)
			var subs []any
			for _, s := range c.st.Servers {
				if sel.matches(s.Labels) {
					subs = append(subs, map[string]any{"type": "server", "server": map[string]any{"id": s.ID}, "use_private_ip": t.UsePrivateIP, "health_status": []any{}})
				}
			}
			if subs == nil {
				subs = []any{}
			}
			w["targets"] = subs
		} else {
			w["server"] = map[string]any{"id": t.Server}
		}
		targets = append(targets, w)
	}
	priv := []any{}
	if lb.Network != 0 {
		priv = append(priv, map[string]any{"network": lb.Network, "ip": lb.PrivateIP})
	}
	loc, _ := locationByName(lb.Location)
	return map[string]any{
		"id": lb.ID, "name": lb.Name, "created": c.created(lb.Created), "labels": lb.Labels,
		"public_net":         map[string]any{"enabled": true, "ipv4": map[string]any{"ip": lb.PublicIPv4, "dns_ptr": "static.example"}, "ipv6": map[string]any{"ip": nil}},
		"private_net":        priv,
		"location":           loc.wire(),
		"load_balancer_type": map[string]any{"id": lbTypes[lb.Type], "name": lb.Type, "max_connections": 10000, "max_services": 5, "max_targets": 25},
		"protection":         map[string]any{"delete": false}, "services": services, "targets": targets,
		"algorithm": map[string]any{"type": "round_robin"}, "included_traffic": 21990232555520,
	}
}

func (c *Cloud) lbKind() *kind[LoadBalancer] {
	return &kind[LoadBalancer]{
		c: c, what: "load_balancer", plural: "load_balancers", taken: "load balancer name is already used",
		all:    func() map[int64]*LoadBalancer { return c.st.LoadBalancers },
		id:     func(lb *LoadBalancer) int64 { return lb.ID },
		name:   func(lb *LoadBalancer) *string { return &lb.Name },
		labels: func(lb *LoadBalancer) *map[string]string { return &lb.Labels },
		wire:   c.wireLB,
		// As documented since 2025, the delete is an action: the load
		// balancer goes when it finishes.
		remove: func(lb *LoadBalancer) (int, any, *apiError) {
			// Hetzner Cloud API reference, Load Balancers: Delete a Load
			// Balancer answers 201 with the delete_load_balancer action
			// (hcloud-go: LoadBalancerClient.DeleteWithResult).
			status, out, e := c.lbs.deleteAction("delete_load_balancer", lb, nil)
			if e == nil {
				status = 201
			}
			return status, out, e
		},
	}
}

func (c *Cloud) attachLB(lb *LoadBalancer, n *Network, ipRange string) *apiError {
	ip, e := c.addressIn(n, ipRange, lb.Location)
	if e != nil {
		return e
	}
	lb.Network, lb.PrivateIP = n.ID, ip
	return nil
}

func (c *Cloud) lbRoutes() {
	k := c.lbs
	k.routes()
	// lbAction answers one load balancer action: check decodes and
	// validates the body and returns the effect to run when it finishes.
	lbAction := func(command string, check func(lb *LoadBalancer, body []byte) (func() *apiError, *apiError)) handlerFunc {
		return k.action(command, func(lb *LoadBalancer, body []byte) (func() *apiError, []ref, *apiError) {
			apply, e := check(lb, body)
			return apply, nil, e
		})
	}
	c.handle("POST /load_balancers", func(r *http.Request, body []byte) (int, any, *apiError) {
		var in struct {
			Name             string            `json:"name"`
			LoadBalancerType any               `json:"load_balancer_type"`
			Location         string            `json:"location"`
			Labels           map[string]string `json:"labels"`
			Network          *int64            `json:"network"`
			Services         []serviceIn       `json:"services"`
			Targets          []targetIn        `json:"targets"`
		}
		if e := decode(body, &in); e != nil {
			return 0, nil, e
		}
		if in.Name == "" {
			return 0, nil, invalid("name", "is required")
		}
		typ, _ := in.LoadBalancerType.(string)
		if _, ok := lbTypes[typ]; !ok {
			return 0, nil, invalid("load_balancer_type", "load balancer type %v does not exist", in.LoadBalancerType)
		}
		if _, ok := locationByName(in.Location); !ok {
			return 0, nil, invalid("location", "location %q does not exist", in.Location)
		}
		if e := checkLabels(in.Labels); e != nil {
			return 0, nil, e
		}
		if e := k.unique(in.Name, 0); e != nil {
			return 0, nil, e
		}
		lb := &LoadBalancer{ID: c.id(), Name: in.Name, Type: typ, Location: in.Location, Labels: copyLabels(in.Labels), Created: c.timestamp()}
		if in.Network != nil {
			n := c.st.Networks[*in.Network]
			if n == nil {
				return 0, nil, invalid("network", "network %d not found", *in.Network)
			}
			if e := c.attachLB(lb, n, ""); e != nil {
				return 0, nil, e
			}
		}
		for _, si := range in.Services {
			s, e := c.toService(si)
			if e != nil {
				return 0, nil, e
			}
			lb.Services = append(lb.Services, s)
		}
		for _, ti := range in.Targets {
			t, e := c.toTarget(lb, ti)
			if e != nil {
				return 0, nil, e
			}
			lb.Targets = append(lb.Targets, t)
		}
		lb.PublicIPv4 = c.publicIP()
		c.st.LoadBalancers[lb.ID] = lb
		a, e := c.start("create_load_balancer", nil, ref{lb.ID, "load_balancer"})
		if e != nil {
			return 0, nil, e
		}
		return 201, map[string]any{"load_balancer": c.wireLB(lb), "action": a.wire()}, nil
	})
	c.handle("POST /load_balancers/{id}/actions/add_service", lbAction("add_service", func(lb *LoadBalancer, body []byte) (func() *apiError, *apiError) {
		var in serviceIn
		if e := decode(body, &in); e != nil {
			return nil, e
		}
		s, e := c.toService(in)
		if e != nil {
			return nil, e
		}
		for _, o := range lb.Services {
			if o.ListenPort == s.ListenPort {
				return nil, fail("source_port_already_used", "listen port %d is already used", s.ListenPort)
			}
		}
		return func() *apiError { lb.Services = append(lb.Services, s); return nil }, nil
	}))
	c.handle("POST /load_balancers/{id}/actions/update_service", lbAction("update_service", func(lb *LoadBalancer, body []byte) (func() *apiError, *apiError) {
		var in struct {
			ListenPort      int     `json:"listen_port"`
			Protocol        *string `json:"protocol"`
			DestinationPort *int    `json:"destination_port"`
		}
		if e := decode(body, &in); e != nil {
			return nil, e
		}
		i := slices.IndexFunc(lb.Services, func(s Service) bool { return s.ListenPort == in.ListenPort })
		if i < 0 {
			return nil, invalid("listen_port", "no service listens on %d", in.ListenPort)
		}
		return func() *apiError {
			if in.Protocol != nil {
				lb.Services[i].Protocol = *in.Protocol
			}
			if in.DestinationPort != nil {
				lb.Services[i].DestinationPort = *in.DestinationPort
			}
			return nil
		}, nil
	}))
	c.handle("POST /load_balancers/{id}/actions/delete_service", lbAction("delete_service", func(lb *LoadBalancer, body []byte) (func() *apiError, *apiError) {
		var in struct {
			ListenPort int `json:"listen_port"`
		}
		if e := decode(body, &in); e != nil {
			return nil, e
		}
		return func() *apiError {
			lb.Services = slices.DeleteFunc(lb.Services, func(s Service) bool { return s.ListenPort == in.ListenPort })
			return nil
		}, nil
	}))
	c.handle("POST /load_balancers/{id}/actions/add_target", lbAction("add_target", func(lb *LoadBalancer, body []byte) (func() *apiError, *apiError) {
		var in targetIn
		if e := decode(body, &in); e != nil {
			return nil, e
		}
		t, e := c.toTarget(lb, in)
		if e != nil {
			return nil, e
		}
		return func() *apiError { lb.Targets = append(lb.Targets, t); return nil }, nil
	}))
	c.handle("POST /load_balancers/{id}/actions/remove_target", lbAction("remove_target", func(lb *LoadBalancer, body []byte) (func() *apiError, *apiError) {
		var in targetIn
		if e := decode(body, &in); e != nil {
			return nil, e
		}
		return func() *apiError {
			lb.Targets = slices.DeleteFunc(lb.Targets, func(t Target) bool {
				return t.Type == in.Type && ((in.LabelSelector != nil && t.Selector == in.LabelSelector.Selector) || (in.Server != nil && t.Server == in.Server.ID))
			})
			return nil
		}, nil
	}))
	c.handle("POST /load_balancers/{id}/actions/attach_to_network", lbAction("attach_load_balancer_to_network", func(lb *LoadBalancer, body []byte) (func() *apiError, *apiError) {
		var in struct {
			Network int64  `json:"network"`
			IPRange string `json:"ip_range"`
		}
		if e := decode(body, &in); e != nil {
			return nil, e
		}
		n := c.st.Networks[in.Network]
		if n == nil {
			return nil, notFound("network", in.Network)
		}
		if lb.Network != 0 {
			return nil, fail("load_balancer_already_attached", "load balancer %d is already attached to a network", lb.ID)
		}
		loc, _ := locationByName(lb.Location)
		if e := c.subnetReady(n, in.IPRange, loc.NetworkZone); e != nil {
			return nil, e
		}
		return func() *apiError { return c.attachLB(lb, n, in.IPRange) }, nil
	}))
}

// routes registers every endpoint.
func (c *Cloud) routes() {
	c.actionRoutes()
	c.networkRoutes()
	c.firewallRoutes()
	c.sshKeyRoutes()
	c.serverRoutes()
	c.lbRoutes()
}
