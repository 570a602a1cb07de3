package awstest

import (
	"strconv"
	"strings"
)

// Load balancers and listeners, as strict as ELBv2 on what Kyku sends:
// one subnet per zone, two zones for an application load balancer, names
// of 32 characters, security groups (the VPC's default when an application
// load balancer is given none), listener protocols that fit the load
// balancer's type and a certificate for HTTPS and TLS. A load balancer puts
// a network interface in each subnet, which lingers after it is deleted.

func lbNode(s *Server, lb *LB) node {
	var azs, groups []node
	for _, sn := range lb.Subnets {
		zone := ""
		if n := s.st.Subnets[sn]; n != nil {
			zone = n.Zone
		}
		azs = append(azs, el("", tx("SubnetId", sn), tx("ZoneName", zone)))
	}
	for _, g := range lb.Groups {
		groups = append(groups, tx("", g))
	}
	return el("", tx("LoadBalancerArn", lb.Arn), tx("LoadBalancerName", lb.Name), tx("DNSName", lb.DNS),
		tx("VpcId", lb.VpcID), tx("Type", lb.Type), tx("Scheme", "internet-facing"),
		el("State", tx("Code", "active")), list("AvailabilityZones", "member", azs),
		list("SecurityGroups", "member", groups))
}

// lbGroups checks the security groups of a request against the VPC.
func (s *Server) lbGroups(ids []string, vpc string) *apiError {
	for _, id := range ids {
		g, e := s.group(id)
		if e != nil {
			return errf(400, "InvalidSecurityGroup", "%s", e.msg)
		}
		if g.VpcID != vpc {
			return errf(400, "InvalidConfigurationRequest", "security group %s is not in VPC %s", id, vpc)
		}
	}
	return nil
}

func (s *Server) defaultGroup(vpc string) string {
	for _, id := range sortedKeys(s.st.Groups) {
		if g := s.st.Groups[id]; g.VpcID == vpc && g.Name == "default" {
			return id
		}
	}
	return ""
}

func (s *Server) createLB(f form) ([]node, *apiError) {
	name := f.get("Name")
	if e := checkELBName(name); e != nil {
		return nil, e
	}
	if strings.HasPrefix(name, "internal-") {
		return nil, errf(400, "ValidationError", "Load balancer names cannot begin with 'internal-'")
	}
	lb := &LB{Name: name, Type: f.get("Type"), Tags: f.queryTags("Tags.member"), Groups: sorted(f.list("SecurityGroups.member"))}
	if lb.Type == "" {
		lb.Type = "application"
	}
	zones := map[string]bool{}
	for _, id := range f.list("Subnets.member") {
		sn, e := s.subnet(id)
		if e != nil {
			return nil, errf(400, "SubnetNotFound", "%s", e.msg)
		}
		if zones[sn.Zone] {
			return nil, errf(400, "InvalidConfigurationRequest", "A load balancer cannot be attached to multiple subnets in the same Availability Zone")
		}
		zones[sn.Zone] = true
		if lb.VpcID != "" && sn.VpcID != lb.VpcID {
			return nil, errf(400, "InvalidConfigurationRequest", "subnets must be in one VPC")
		}
		lb.VpcID = sn.VpcID
		lb.Subnets = append(lb.Subnets, id)
	}
	switch {
	case len(lb.Subnets) == 0:
		return nil, errf(400, "ValidationError", "at least one subnet is required")
	case lb.Type == "application" && len(zones) < 2:
		return nil, errf(400, "ValidationError", "At least two subnets in two different Availability Zones must be specified")
	}
	if e := s.lbGroups(lb.Groups, lb.VpcID); e != nil {
		return nil, e
	}
	if len(lb.Groups) == 0 && lb.Type == "application" {
		lb.Groups = []string{s.defaultGroup(lb.VpcID)}
	}
	for _, other := range s.st.LBs {
		if other.Name == name {
			// The same name and settings: ELBv2 answers with the existing one.
			if other.Type == lb.Type && strings.Join(sorted(other.Subnets), ",") == strings.Join(sorted(lb.Subnets), ",") {
				return []node{list("LoadBalancers", "member", []node{lbNode(s, other)})}, nil
			}
			return nil, errf(400, "DuplicateLoadBalancerName", "A load balancer with the same name '%s' exists", name)
		}
	}
	kind := "app"
	if lb.Type == "network" {
		kind = "net"
	}
	lb.Arn = s.arn("loadbalancer/"+kind, name)
	lb.DNS = name + "-123456." + "eu-west-1.elb.amazonaws.com"
	s.st.LBs[lb.Arn] = lb
	s.born(lb.Arn)
	s.addENIs(lb.Arn, "ELB "+kind+"/"+name, lb.Subnets, lb.Groups)
	return []node{list("LoadBalancers", "member", []node{lbNode(s, lb)})}, nil
}

func (s *Server) describeLBs(f form) ([]node, *apiError) {
	arns, names := f.list("LoadBalancerArns.member"), f.list("Names.member")
	if missing := s.missingNames(arns, names, s.lbNames()); len(missing) > 0 {
		return nil, errf(400, "LoadBalancerNotFound", "One or more load balancers not found: %s", strings.Join(missing, ", "))
	}
	keys, tail, e := s.markerPage(f, "PageSize", "NextMarker", sortedKeys(s.st.LBs))
	if e != nil {
		return nil, e
	}
	var items []node
	for _, arn := range keys {
		lb := s.st.LBs[arn]
		if (len(arns) == 0 || anyIn([]string{arn}, arns)) && (len(names) == 0 || anyIn([]string{lb.Name}, names)) {
			items = append(items, lbNode(s, lb))
		}
	}
	return append([]node{list("LoadBalancers", "member", items)}, tail...), nil
}

func (s *Server) deleteLB(f form) ([]node, *apiError) {
	arn := f.get("LoadBalancerArn")
	if s.st.LBs[arn] == nil {
		// Deleting a load balancer that is gone succeeds, as on ELBv2.
		return nil, nil
	}
	for larn, l := range s.st.Listeners {
		if l.LB == arn {
			delete(s.st.Listeners, larn)
		}
	}
	delete(s.st.LBs, arn)
	s.releaseENIs(arn)
	return nil, nil
}

func (s *Server) setLBGroups(f form) ([]node, *apiError) {
	lb := s.st.LBs[f.get("LoadBalancerArn")]
	if lb == nil || s.lagging(lb.Arn) {
		return nil, errf(400, "LoadBalancerNotFound", "load balancer not found")
	}
	groups := sorted(f.list("SecurityGroups.member"))
	if e := s.lbGroups(groups, lb.VpcID); e != nil {
		return nil, e
	}
	if lb.Type == "application" && len(groups) == 0 {
		return nil, errf(400, "ValidationError", "an application load balancer needs a security group")
	}
	// Elastic Load Balancing API Reference, SetSecurityGroups: a Network
	// Load Balancer made without security groups cannot get any, and one
	// made with them cannot lose them all.
	if lb.Type == "network" && (len(lb.Groups) == 0) != (len(groups) == 0) {
		return nil, errf(400, "InvalidConfigurationRequest", "You cannot change a Network Load Balancer between having security groups and not having them")
	}
	lb.Groups = groups
	s.setENIGroups(lb.Arn, groups)
	var ids []node
	for _, g := range groups {
		ids = append(ids, tx("", g))
	}
	return []node{list("SecurityGroupIds", "member", ids)}, nil
}

func listenerNode(l *Listener) node {
	kids := []node{tx("ListenerArn", l.Arn), tx("LoadBalancerArn", l.LB), txi("Port", l.Port), tx("Protocol", l.Protocol),
		list("DefaultActions", "member", []node{el("", tx("Type", "forward"), tx("TargetGroupArn", l.TG))})}
	if l.Certificate != "" {
		kids = append(kids, list("Certificates", "member", []node{el("", tx("CertificateArn", l.Certificate))}))
	}
	return el("", kids...)
}

// listenerFits checks a listener's protocol and certificate against its
// load balancer and target group, as ELBv2 does.
func listenerFits(lb *LB, tg *TG, protocol, cert string) *apiError {
	web := map[string]bool{"HTTP": true, "HTTPS": true}
	stream := map[string]bool{"TCP": true, "TLS": true, "UDP": true, "TCP_UDP": true}
	switch {
	case lb.Type == "application" && !web[protocol], lb.Type == "network" && !stream[protocol]:
		return errf(400, "IncompatibleProtocols", "listener protocol '%s' is not supported by a load balancer of type '%s'", protocol, lb.Type)
	case lb.Type == "application" && !web[tg.Protocol], lb.Type == "network" && !stream[tg.Protocol]:
		return errf(400, "IncompatibleProtocols", "target group protocol '%s' does not fit a load balancer of type '%s'", tg.Protocol, lb.Type)
	case (protocol == "HTTPS" || protocol == "TLS") && cert == "":
		return errf(400, "ValidationError", "A certificate must be specified for %s listeners", protocol)
	case cert != "" && !strings.HasPrefix(cert, "arn:aws:acm:") && !strings.HasPrefix(cert, "arn:aws:iam::"):
		return errf(400, "CertificateNotFound", "Certificate '%s' not found", cert)
	}
	return nil
}

func (s *Server) createListener(f form) ([]node, *apiError) {
	lb := s.st.LBs[f.get("LoadBalancerArn")]
	if lb == nil || s.lagging(lb.Arn) {
		return nil, errf(400, "LoadBalancerNotFound", "load balancer not found")
	}
	tg, e := s.tg(f.get("DefaultActions.member.1.TargetGroupArn"))
	if e != nil {
		return nil, e
	}
	port, _ := strconv.Atoi(f.get("Port"))
	cert := f.get("Certificates.member.1.CertificateArn")
	if e := listenerFits(lb, tg, f.get("Protocol"), cert); e != nil {
		return nil, e
	}
	for _, l := range s.st.Listeners {
		if l.LB == lb.Arn && l.Port == port {
			return nil, errf(400, "DuplicateListener", "A listener already exists on port %d", port)
		}
	}
	l := &Listener{Arn: s.arn("listener/app", lb.Name), LB: lb.Arn,
		Protocol: f.get("Protocol"), TG: tg.Arn, Port: port, Certificate: cert}
	s.st.Listeners[l.Arn] = l
	return []node{list("Listeners", "member", []node{listenerNode(l)})}, nil
}

func (s *Server) describeListeners(f form) ([]node, *apiError) {
	lb := f.get("LoadBalancerArn")
	if lb != "" && (s.st.LBs[lb] == nil || s.lagging(lb)) {
		return nil, errf(400, "LoadBalancerNotFound", "load balancer not found")
	}
	keys, tail, e := s.markerPage(f, "PageSize", "NextMarker", sortedKeys(s.st.Listeners))
	if e != nil {
		return nil, e
	}
	var items []node
	for _, arn := range keys {
		if l := s.st.Listeners[arn]; lb == "" || l.LB == lb {
			items = append(items, listenerNode(l))
		}
	}
	return append([]node{list("Listeners", "member", items)}, tail...), nil
}

func (s *Server) modifyListener(f form) ([]node, *apiError) {
	l := s.st.Listeners[f.get("ListenerArn")]
	if l == nil {
		return nil, errf(400, "ListenerNotFound", "listener not found")
	}
	next := *l
	if p, err := strconv.Atoi(f.get("Port")); err == nil {
		next.Port = p
	}
	if p := f.get("Protocol"); p != "" {
		next.Protocol = p
	}
	if c := f.get("Certificates.member.1.CertificateArn"); c != "" {
		next.Certificate = c
	}
	if next.Protocol == "HTTP" || next.Protocol == "TCP" {
		next.Certificate = ""
	}
	if arn := f.get("DefaultActions.member.1.TargetGroupArn"); arn != "" {
		next.TG = arn
	}
	tg, e := s.tg(next.TG)
	if e != nil {
		return nil, e
	}
	if e := listenerFits(s.st.LBs[l.LB], tg, next.Protocol, next.Certificate); e != nil {
		return nil, e
	}
	*l = next
	return []node{list("Listeners", "member", []node{listenerNode(l)})}, nil
}
