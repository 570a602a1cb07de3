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

// lbKind maps LoadBalancer to a load balancer (type lb11) in the
// configured location, attached to network when given, with one service
// listening on port and forwarding to the target group's port, and one
// label-selector target: the target group's label (through the private
// network when attached). Service protocol: the group's http → http, tcp →
// tcp, https → tcp (TLS passes through to the servers; Hetzner would need
// a certificate to terminate it). Outputs endpoint: the public IPv4.
type lbKind struct{ p *Provider }

const lbType = "lb11"

func serviceProtocol(tgProtocol string) hcloud.LoadBalancerServiceProtocol {
	if tgProtocol == "http" {
		return hcloud.LoadBalancerServiceProtocolHTTP
	}
	return hcloud.LoadBalancerServiceProtocolTCP
}

func lbObject(lb *hcloud.LoadBalancer) provider.Object {
	props := map[string]any{}
	if len(lb.PrivateNet) > 0 && lb.PrivateNet[0].Network != nil {
		props["network"] = strconv.FormatInt(lb.PrivateNet[0].Network.ID, 10)
	}
	if len(lb.Services) > 0 {
		props["port"] = float64(lb.Services[0].ListenPort)
	}
	for _, t := range lb.Targets {
		if t.Type == hcloud.LoadBalancerTargetTypeLabelSelector && t.LabelSelector != nil && strings.HasPrefix(t.LabelSelector.Selector, keyTG) {
			props["targetGroup"] = t.LabelSelector.Selector
		}
	}
	endpoint := ""
	if ip := lb.PublicNet.IPv4.IP; ip != nil {
		endpoint = ip.String()
	}
	return provider.NewObject(strconv.FormatInt(lb.ID, 10), lb.Name, property.SetTags(props, lb.Labels, isKykuLabel), map[string]any{"endpoint": endpoint})
}

func (p *Provider) loadBalancers() api[hcloud.LoadBalancer] {
	return api[hcloud.LoadBalancer]{
		p: p, what: "load balancer", get: p.c.LoadBalancer.GetByID,
		list: func(ctx context.Context, name, selector string) ([]*hcloud.LoadBalancer, *hcloud.Response, error) {
			return p.c.LoadBalancer.List(ctx, hcloud.LoadBalancerListOpts{Name: name, ListOpts: hcloud.ListOpts{LabelSelector: selector}})
		},
		labels: func(lb *hcloud.LoadBalancer) map[string]string { return lb.Labels },
		relabel: func(ctx context.Context, lb *hcloud.LoadBalancer, labels map[string]string) (*hcloud.LoadBalancer, *hcloud.Response, error) {
			return p.c.LoadBalancer.Update(ctx, lb, hcloud.LoadBalancerUpdateOpts{Labels: labels})
		},
		rename: func(ctx context.Context, lb *hcloud.LoadBalancer, name string, labels map[string]string) (*hcloud.LoadBalancer, *hcloud.Response, error) {
			return p.c.LoadBalancer.Update(ctx, lb, hcloud.LoadBalancerUpdateOpts{Name: name, Labels: labels})
		},
		// As documented since 2025, the delete is an action: the load
		// balancer goes when it finishes.
		del: func(ctx context.Context, lb *hcloud.LoadBalancer) (*hcloud.Action, *hcloud.Response, error) {
			res, r, err := p.c.LoadBalancer.DeleteWithResult(ctx, lb)
			return res.Action, r, err
		},
		object: func(_ context.Context, lb *hcloud.LoadBalancer) (provider.Object, error) { return lbObject(lb), nil },
	}
}

// group reads the target group r references: its ID, protocol and port.
func (k lbKind) group(ctx context.Context, r provider.Resource) (string, string, int, error) {
	id := property.String(r.Properties, "targetGroup")
	if _, err := parseTGID(id); err != nil {
		return "", "", 0, fmt.Errorf("property targetGroup: %q is not a Kyku target group ID (kyku-tg/<cloud name>)", id)
	}
	tg, err := tgKind(k).Read(ctx, id)
	if err != nil {
		return "", "", 0, err
	}
	return id, property.String(tg.Properties, "protocol"), property.Int(tg.Properties, "port", 80), nil
}

func (k lbKind) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	var netID int64
	if _, ok := r.Properties["network"]; ok {
		n, err := refID(r, "network")
		if err != nil {
			return provider.Object{}, err
		}
		netID = n
	}
	tg, proto, dest, err := k.group(ctx, r)
	if err != nil {
		return provider.Object{}, err
	}
	port := property.Int(r.Properties, "port", 80)
	opts := hcloud.LoadBalancerCreateOpts{
		Name: r.CloudName, LoadBalancerType: &hcloud.LoadBalancerType{Name: lbType},
		Location: &hcloud.Location{Name: k.p.opts.Location}, Labels: wantLabels(r, nil),
		Services: []hcloud.LoadBalancerCreateOptsService{{Protocol: serviceProtocol(proto), ListenPort: hcloud.Ptr(port), DestinationPort: hcloud.Ptr(dest)}},
		Targets: []hcloud.LoadBalancerCreateOptsTarget{{
			Type: hcloud.LoadBalancerTargetTypeLabelSelector, LabelSelector: hcloud.LoadBalancerCreateOptsTargetLabelSelector{Selector: tg},
			UsePrivateIP: hcloud.Ptr(netID != 0),
		}},
	}
	if netID != 0 {
		opts.Network = &hcloud.Network{ID: netID}
	}
	lb, err := k.p.loadBalancers().ensure(ctx, r.CloudName, func(ctx context.Context) (*hcloud.LoadBalancer, []*hcloud.Action, *hcloud.Response, error) {
		res, resp, err := k.p.c.LoadBalancer.Create(ctx, opts)
		return res.LoadBalancer, []*hcloud.Action{res.Action}, resp, err
	})
	if err != nil {
		return provider.Object{}, err
	}
	// Finish an interrupted create, or converge an existing one.
	return k.converge(ctx, lb.ID, property.Int(r.Properties, "port", 80), netID, tg, proto, dest, wantLabels(r, nil))
}

// converge brings the load balancer's network, service (on port, to the
// group's protocol and port dest) and target in line, and its labels when
// labels is not nil, and returns it.
func (k lbKind) converge(ctx context.Context, id int64, port int, netID int64, tg, proto string, dest int, labels map[string]string) (provider.Object, error) {
	lbs := k.p.loadBalancers()
	lb, err := lbs.byID(ctx, id)
	if err != nil {
		return provider.Object{}, err
	}
	act := func(op string, fn func(ctx context.Context) (*hcloud.Action, *hcloud.Response, error)) error {
		return k.p.act(ctx, op, func(ctx context.Context) ([]*hcloud.Action, *hcloud.Response, error) { return one(fn(ctx)) },
			hcloud.ErrorCodeSourcePortAlreadyUsed, hcloud.ErrorCodeTargetAlreadyDefined, hcloud.ErrorCodeLoadBalancerAlreadyAttached)
	}
	if netID != 0 && len(lb.PrivateNet) == 0 {
		// no_subnet_available right after the subnet was added is the
		// API catching up: retried (bounded).
		err := k.p.actChecked(ctx, "attach load balancer to network", retrying(hcloud.ErrorCodeNoSubnetAvailable), func(ctx context.Context) ([]*hcloud.Action, *hcloud.Response, error) {
			return one(k.p.c.LoadBalancer.AttachToNetwork(ctx, lb, hcloud.LoadBalancerAttachToNetworkOpts{Network: &hcloud.Network{ID: netID}}))
		}, hcloud.ErrorCodeLoadBalancerAlreadyAttached)
		if err != nil {
			return provider.Object{}, err
		}
	} else if netID != 0 && (lb.PrivateNet[0].Network == nil || lb.PrivateNet[0].Network.ID != netID) {
		return provider.Object{}, fmt.Errorf("the load balancer is attached to network %d; moving it to network %d is not supported in place (replace it)", lb.PrivateNet[0].Network.ID, netID)
	}
	for _, s := range lb.Services {
		if s.ListenPort == port {
			continue
		}
		err := act(fmt.Sprintf("delete service on port %d", s.ListenPort), func(ctx context.Context) (*hcloud.Action, *hcloud.Response, error) {
			return k.p.c.LoadBalancer.DeleteService(ctx, lb, s.ListenPort)
		})
		if err != nil {
			return provider.Object{}, err
		}
	}
	var svc *hcloud.LoadBalancerService
	for i := range lb.Services {
		if lb.Services[i].ListenPort == port {
			svc = &lb.Services[i]
		}
	}
	switch {
	case svc == nil:
		err = act(fmt.Sprintf("add service on port %d", port), func(ctx context.Context) (*hcloud.Action, *hcloud.Response, error) {
			return k.p.c.LoadBalancer.AddService(ctx, lb, hcloud.LoadBalancerAddServiceOpts{
				Protocol: serviceProtocol(proto), ListenPort: hcloud.Ptr(port), DestinationPort: hcloud.Ptr(dest),
			})
		})
	case svc.Protocol != serviceProtocol(proto) || svc.DestinationPort != dest:
		err = act(fmt.Sprintf("update service on port %d", port), func(ctx context.Context) (*hcloud.Action, *hcloud.Response, error) {
			return k.p.c.LoadBalancer.UpdateService(ctx, lb, port, hcloud.LoadBalancerUpdateServiceOpts{Protocol: serviceProtocol(proto), DestinationPort: hcloud.Ptr(dest)})
		})
	}
	if err != nil {
		return provider.Object{}, err
	}
	hasTarget := false
	for _, t := range lb.Targets {
		if t.Type != hcloud.LoadBalancerTargetTypeLabelSelector || t.LabelSelector == nil {
			continue
		}
		if t.LabelSelector.Selector == tg {
			hasTarget = true
			continue
		}
		if strings.HasPrefix(t.LabelSelector.Selector, keyTG) {
			sel := t.LabelSelector.Selector
			err := act("remove target "+sel, func(ctx context.Context) (*hcloud.Action, *hcloud.Response, error) {
				return k.p.c.LoadBalancer.RemoveLabelSelectorTarget(ctx, lb, sel)
			})
			if err != nil {
				return provider.Object{}, err
			}
		}
	}
	if !hasTarget {
		err := act("add target "+tg, func(ctx context.Context) (*hcloud.Action, *hcloud.Response, error) {
			return k.p.c.LoadBalancer.AddLabelSelectorTarget(ctx, lb, hcloud.LoadBalancerAddLabelSelectorTargetOpts{Selector: tg, UsePrivateIP: hcloud.Ptr(netID != 0)})
		})
		if err != nil {
			return provider.Object{}, err
		}
	}
	if labels != nil {
		if _, err := lbs.label(ctx, lb, labels); err != nil {
			return provider.Object{}, err
		}
	}
	return k.Read(ctx, strconv.FormatInt(id, 10))
}

// retarget carries a target group's new protocol and port to the services
// of the Kyku load balancers that target it.
func (k lbKind) retarget(ctx context.Context, tg, proto string, dest int) error {
	lbs, _, err := all(ctx, k.p, "list load balancers", func(ctx context.Context, o hcloud.ListOpts) ([]*hcloud.LoadBalancer, *hcloud.Response, error) {
		return k.p.c.LoadBalancer.List(ctx, hcloud.LoadBalancerListOpts{ListOpts: o})
	}, labelManaged+"=true")
	if err != nil {
		return err
	}
	for _, lb := range lbs {
		obj := lbObject(lb)
		if obj.Properties["targetGroup"] != tg {
			continue
		}
		netID, _ := strconv.ParseInt(property.String(obj.Properties, "network"), 10, 64)
		if _, err := k.converge(ctx, lb.ID, property.Int(obj.Properties, "port", 80), netID, tg, proto, dest, nil); err != nil {
			return fmt.Errorf("load balancer %s: %w", lb.Name, err)
		}
	}
	return nil
}

func (k lbKind) Read(ctx context.Context, id string) (provider.Object, error) {
	return k.p.loadBalancers().read(ctx, id)
}

func (k lbKind) Update(ctx context.Context, id string, r provider.Resource, _ provider.Object) (provider.Object, error) {
	lid, err := parseID(id)
	if err != nil {
		return provider.Object{}, err
	}
	var netID int64
	if _, ok := r.Properties["network"]; ok {
		if netID, err = refID(r, "network"); err != nil {
			return provider.Object{}, err
		}
	}
	tg, proto, dest, err := k.group(ctx, r)
	if err != nil {
		return provider.Object{}, err
	}
	return k.converge(ctx, lid, property.Int(r.Properties, "port", 80), netID, tg, proto, dest, wantLabels(r, nil))
}

func (k lbKind) Delete(ctx context.Context, id string) error {
	return k.p.loadBalancers().remove(ctx, id)
}

func (k lbKind) Lookup(ctx context.Context, name string) (provider.Object, error) {
	return k.p.loadBalancers().lookup(ctx, name)
}
