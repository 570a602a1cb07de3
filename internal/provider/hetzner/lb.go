package hetzner

import (
	"context"
	"fmt"
	"maps"
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

func (k lbKind) get(ctx context.Context, id int64) (*hcloud.LoadBalancer, error) {
	var lb *hcloud.LoadBalancer
	err := k.p.call(ctx, "get load balancer", func(ctx context.Context) (r *hcloud.Response, err error) {
		lb, r, err = k.p.c.LoadBalancer.GetByID(ctx, id)
		return r, err
	})
	if err != nil {
		return nil, err
	}
	if lb == nil {
		return nil, provider.NotFound(fmt.Sprintf("load balancer %d", id))
	}
	return lb, nil
}

func (k lbKind) byName(ctx context.Context, name, selector string) (*hcloud.LoadBalancer, error) {
	var lbs []*hcloud.LoadBalancer
	err := k.p.call(ctx, "list load balancers", func(ctx context.Context) (r *hcloud.Response, err error) {
		lbs, r, err = k.p.c.LoadBalancer.List(ctx, hcloud.LoadBalancerListOpts{Name: name, ListOpts: hcloud.ListOpts{LabelSelector: selector}})
		return r, err
	})
	if err != nil || len(lbs) == 0 {
		return nil, err
	}
	return lbs[0], nil
}

// group reads the target group r references: its ID, protocol and port.
func (k lbKind) group(ctx context.Context, r provider.Resource) (string, string, int, error) {
	id := property.String(r.Properties, "targetGroup")
	if _, err := parseTGID(id); err != nil {
		return "", "", 0, fmt.Errorf("property targetGroup: %q is not a Kyku target group ID (kyku-tg/<cloud name>)", id)
	}
	tg, err := (tgKind{k.p}).Read(ctx, id)
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
	lb, err := k.byName(ctx, r.CloudName, "")
	if err != nil {
		return provider.Object{}, err
	}
	if lb == nil {
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
		var res hcloud.LoadBalancerCreateResult
		err = k.p.call(ctx, "create load balancer", func(ctx context.Context) (resp *hcloud.Response, err error) {
			res, resp, err = k.p.c.LoadBalancer.Create(ctx, opts)
			return resp, err
		})
		switch {
		case isCode(err, hcloud.ErrorCodeUniquenessError):
			if lb, err = k.byName(ctx, r.CloudName, ""); err == nil && lb == nil {
				err = fmt.Errorf("create load balancer %q: uniqueness_error, yet none has that name", r.CloudName)
			}
		case err == nil:
			lb = res.LoadBalancer
			err = k.p.wait(ctx, res.Action)
		}
		if err != nil {
			return provider.Object{}, err
		}
	}
	if err := managed("load balancer", r.CloudName, lb.Labels); err != nil {
		return provider.Object{}, err
	}
	// Finish an interrupted create, or converge an existing one.
	return k.converge(ctx, lb.ID, property.Int(r.Properties, "port", 80), netID, tg, proto, dest, wantLabels(r, nil))
}

// converge brings the load balancer's network, service (on port, to the
// group's protocol and port dest) and target in line, and its labels when
// labels is not nil, and returns it.
func (k lbKind) converge(ctx context.Context, id int64, port int, netID int64, tg, proto string, dest int, labels map[string]string) (provider.Object, error) {
	lb, err := k.get(ctx, id)
	if err != nil {
		return provider.Object{}, err
	}
	act := func(op string, fn func(ctx context.Context) (*hcloud.Action, *hcloud.Response, error)) error {
		var a *hcloud.Action
		err := k.p.call(ctx, op, func(ctx context.Context) (resp *hcloud.Response, err error) {
			a, resp, err = fn(ctx)
			return resp, err
		})
		switch {
		case err == nil:
			return k.p.wait(ctx, a)
		case isCode(err, hcloud.ErrorCodeSourcePortAlreadyUsed), isCode(err, hcloud.ErrorCodeTargetAlreadyDefined),
			isCode(err, hcloud.ErrorCodeLoadBalancerAlreadyAttached):
			return nil // a retry whose first answer was lost: what it asked for is there
		}
		return err
	}
	if netID != 0 && len(lb.PrivateNet) == 0 {
		err := act("attach load balancer to network", func(ctx context.Context) (*hcloud.Action, *hcloud.Response, error) {
			return k.p.c.LoadBalancer.AttachToNetwork(ctx, lb, hcloud.LoadBalancerAttachToNetworkOpts{Network: &hcloud.Network{ID: netID}})
		})
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
	if labels != nil && !maps.Equal(labels, lb.Labels) {
		err := k.p.call(ctx, "label load balancer", func(ctx context.Context) (resp *hcloud.Response, err error) {
			_, resp, err = k.p.c.LoadBalancer.Update(ctx, lb, hcloud.LoadBalancerUpdateOpts{Labels: labels})
			return resp, err
		})
		if err != nil {
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
	lid, err := parseID(id)
	if err != nil {
		return provider.Object{}, err
	}
	lb, err := k.get(ctx, lid)
	if err != nil {
		return provider.Object{}, err
	}
	return lbObject(lb), nil
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
	lid, err := parseID(id)
	if err != nil {
		return err
	}
	lb, err := k.get(ctx, lid)
	if err != nil {
		return err
	}
	var res hcloud.LoadBalancerDeleteResult
	err = k.p.call(ctx, "delete load balancer", func(ctx context.Context) (resp *hcloud.Response, err error) {
		res, resp, err = k.p.c.LoadBalancer.DeleteWithResult(ctx, lb)
		return resp, err
	})
	if err != nil {
		return err
	}
	return k.p.wait(ctx, res.Action)
}

func (k lbKind) Lookup(ctx context.Context, name string) (provider.Object, error) {
	lb, err := k.byName(ctx, name, labelManaged+"=true")
	if err != nil {
		return provider.Object{}, err
	}
	if lb == nil {
		return provider.Object{}, provider.NotFound("load balancer " + name)
	}
	return lbObject(lb), nil
}
