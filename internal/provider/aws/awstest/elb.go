package awstest

import "strconv"

var elbActions = map[string]queryHandler{
	"CreateTargetGroup":     (*Server).createTG,
	"DescribeTargetGroups":  (*Server).describeTGs,
	"DeleteTargetGroup":     (*Server).deleteTG,
	"RegisterTargets":       func(s *Server, f form) ([]node, *apiError) { return s.targets(f, true) },
	"DeregisterTargets":     func(s *Server, f form) ([]node, *apiError) { return s.targets(f, false) },
	"DescribeTargetHealth":  (*Server).describeTargetHealth,
	"CreateLoadBalancer":    (*Server).createLB,
	"DescribeLoadBalancers": (*Server).describeLBs,
	"DeleteLoadBalancer":    (*Server).deleteLB,
	"CreateListener":        (*Server).createListener,
	"DescribeListeners":     (*Server).describeListeners,
	"ModifyListener":        (*Server).modifyListener,
	"AddTags":               (*Server).addELBTags,
	"RemoveTags":            (*Server).removeELBTags,
	"DescribeTags":          (*Server).describeELBTags,
}

func tgNode(tg *TG) node {
	return el("", tx("TargetGroupArn", tg.Arn), tx("TargetGroupName", tg.Name), tx("Protocol", tg.Protocol),
		txi("Port", tg.Port), tx("VpcId", tg.VpcID), tx("TargetType", "instance"))
}

func (s *Server) createTG(f form) ([]node, *apiError) {
	name := f.get("Name")
	for _, tg := range s.st.TGs {
		if tg.Name == name {
			return nil, errf(400, "DuplicateTargetGroupName", "A target group with the same name '%s' exists", name)
		}
	}
	if _, e := s.vpc(f.get("VpcId")); e != nil {
		return nil, errf(400, "ValidationError", "%s", e.msg)
	}
	port, _ := strconv.Atoi(f.get("Port"))
	tg := &TG{Arn: s.arn("targetgroup", name), Name: name, Protocol: f.get("Protocol"), VpcID: f.get("VpcId"),
		Port: port, Tags: f.queryTags("Tags.member")}
	s.st.TGs[tg.Arn] = tg
	return []node{list("TargetGroups", "member", []node{tgNode(tg)})}, nil
}

func (s *Server) tg(arn string) (*TG, *apiError) {
	tg := s.st.TGs[arn]
	if tg == nil {
		return nil, errf(400, "TargetGroupNotFound", "Target groups '%s' not found", arn)
	}
	return tg, nil
}

func (s *Server) describeTGs(f form) ([]node, *apiError) {
	arns, names := f.list("TargetGroupArns.member"), f.list("Names.member")
	var items []node
	for _, arn := range sortedKeys(s.st.TGs) {
		tg := s.st.TGs[arn]
		if (len(arns) == 0 || anyIn([]string{arn}, arns)) && (len(names) == 0 || anyIn([]string{tg.Name}, names)) {
			items = append(items, tgNode(tg))
		}
	}
	if len(items) == 0 && len(arns)+len(names) > 0 {
		return nil, errf(400, "TargetGroupNotFound", "One or more target groups not found")
	}
	return []node{list("TargetGroups", "member", items)}, nil
}

func (s *Server) deleteTG(f form) ([]node, *apiError) {
	tg, e := s.tg(f.get("TargetGroupArn"))
	if e != nil {
		return nil, e
	}
	for _, l := range s.st.Listeners {
		if l.TG == tg.Arn {
			return nil, errf(400, "ResourceInUse", "Target group '%s' is currently in use by a listener", tg.Arn)
		}
	}
	delete(s.st.TGs, tg.Arn)
	return nil, nil
}

func (s *Server) targets(f form, register bool) ([]node, *apiError) {
	tg, e := s.tg(f.get("TargetGroupArn"))
	if e != nil {
		return nil, e
	}
	for _, p := range f.structs("Targets.member") {
		id := f.get(p + ".Id")
		if register {
			in, e := s.instance(id)
			if e != nil {
				return nil, errf(400, "InvalidTarget", "%s", e.msg)
			}
			if in.VpcID != tg.VpcID {
				return nil, errf(400, "InvalidTarget", "instance %s is not in the target group's VPC", id)
			}
			if !anyIn(tg.Targets, []string{id}) {
				tg.Targets = append(tg.Targets, id)
			}
			continue
		}
		kept := tg.Targets[:0]
		for _, t := range tg.Targets {
			if t != id {
				kept = append(kept, t)
			}
		}
		tg.Targets = kept
	}
	return nil, nil
}

func (s *Server) describeTargetHealth(f form) ([]node, *apiError) {
	tg, e := s.tg(f.get("TargetGroupArn"))
	if e != nil {
		return nil, e
	}
	var items []node
	for _, t := range tg.Targets {
		items = append(items, el("", el("Target", tx("Id", t), txi("Port", tg.Port)), el("TargetHealth", tx("State", "healthy"))))
	}
	return []node{list("TargetHealthDescriptions", "member", items)}, nil
}

func lbNode(lb *LB) node {
	var azs []node
	for _, sn := range lb.Subnets {
		azs = append(azs, el("", tx("SubnetId", sn)))
	}
	return el("", tx("LoadBalancerArn", lb.Arn), tx("LoadBalancerName", lb.Name), tx("DNSName", lb.DNS),
		tx("VpcId", lb.VpcID), tx("Type", lb.Type), tx("Scheme", "internet-facing"),
		el("State", tx("Code", "active")), list("AvailabilityZones", "member", azs))
}

func (s *Server) createLB(f form) ([]node, *apiError) {
	name := f.get("Name")
	for _, lb := range s.st.LBs {
		if lb.Name == name {
			return nil, errf(400, "DuplicateLoadBalancerName", "A load balancer with the same name '%s' exists", name)
		}
	}
	lb := &LB{Name: name, Type: f.get("Type"), Tags: f.queryTags("Tags.member")}
	if lb.Type == "" {
		lb.Type = "application"
	}
	for _, id := range f.list("Subnets.member") {
		sn, e := s.subnet(id)
		if e != nil {
			return nil, errf(400, "SubnetNotFound", "%s", e.msg)
		}
		lb.VpcID = sn.VpcID
		lb.Subnets = append(lb.Subnets, id)
	}
	if len(lb.Subnets) == 0 {
		return nil, errf(400, "ValidationError", "at least one subnet is required")
	}
	lb.Arn = s.arn("loadbalancer/app", name)
	lb.DNS = name + "-123456." + "eu-west-1.elb.amazonaws.com"
	s.st.LBs[lb.Arn] = lb
	return []node{list("LoadBalancers", "member", []node{lbNode(lb)})}, nil
}

func (s *Server) describeLBs(f form) ([]node, *apiError) {
	arns, names := f.list("LoadBalancerArns.member"), f.list("Names.member")
	var items []node
	for _, arn := range sortedKeys(s.st.LBs) {
		lb := s.st.LBs[arn]
		if (len(arns) == 0 || anyIn([]string{arn}, arns)) && (len(names) == 0 || anyIn([]string{lb.Name}, names)) {
			items = append(items, lbNode(lb))
		}
	}
	if len(items) == 0 && len(arns)+len(names) > 0 {
		return nil, errf(400, "LoadBalancerNotFound", "One or more load balancers not found")
	}
	return []node{list("LoadBalancers", "member", items)}, nil
}

func (s *Server) deleteLB(f form) ([]node, *apiError) {
	arn := f.get("LoadBalancerArn")
	if s.st.LBs[arn] == nil {
		return nil, errf(400, "LoadBalancerNotFound", "load balancer %s not found", arn)
	}
	for larn, l := range s.st.Listeners {
		if l.LB == arn {
			delete(s.st.Listeners, larn)
		}
	}
	delete(s.st.LBs, arn)
	return nil, nil
}

func listenerNode(l *Listener) node {
	return el("", tx("ListenerArn", l.Arn), tx("LoadBalancerArn", l.LB), txi("Port", l.Port), tx("Protocol", l.Protocol),
		list("DefaultActions", "member", []node{el("", tx("Type", "forward"), tx("TargetGroupArn", l.TG))}))
}

func (s *Server) createListener(f form) ([]node, *apiError) {
	lb := s.st.LBs[f.get("LoadBalancerArn")]
	if lb == nil {
		return nil, errf(400, "LoadBalancerNotFound", "load balancer not found")
	}
	tg, e := s.tg(f.get("DefaultActions.member.1.TargetGroupArn"))
	if e != nil {
		return nil, e
	}
	port, _ := strconv.Atoi(f.get("Port"))
	for _, l := range s.st.Listeners {
		if l.LB == lb.Arn && l.Port == port {
			return nil, errf(400, "DuplicateListener", "A listener already exists on port %d", port)
		}
	}
	l := &Listener{Arn: s.arn("listener/app", lb.Name), LB: lb.Arn,
		Protocol: f.get("Protocol"), TG: tg.Arn, Port: port}
	s.st.Listeners[l.Arn] = l
	return []node{list("Listeners", "member", []node{listenerNode(l)})}, nil
}

func (s *Server) describeListeners(f form) ([]node, *apiError) {
	lb := f.get("LoadBalancerArn")
	if lb != "" && s.st.LBs[lb] == nil {
		return nil, errf(400, "LoadBalancerNotFound", "load balancer not found")
	}
	var items []node
	for _, arn := range sortedKeys(s.st.Listeners) {
		if l := s.st.Listeners[arn]; lb == "" || l.LB == lb {
			items = append(items, listenerNode(l))
		}
	}
	return []node{list("Listeners", "member", items)}, nil
}

func (s *Server) modifyListener(f form) ([]node, *apiError) {
	l := s.st.Listeners[f.get("ListenerArn")]
	if l == nil {
		return nil, errf(400, "ListenerNotFound", "listener not found")
	}
	if p, err := strconv.Atoi(f.get("Port")); err == nil {
		l.Port = p
	}
	if arn := f.get("DefaultActions.member.1.TargetGroupArn"); arn != "" {
		if _, e := s.tg(arn); e != nil {
			return nil, e
		}
		l.TG = arn
	}
	return []node{list("Listeners", "member", []node{listenerNode(l)})}, nil
}

func (s *Server) elbTags(arn string) (map[string]string, *apiError) {
	if tg := s.st.TGs[arn]; tg != nil {
		return tg.Tags, nil
	}
	if lb := s.st.LBs[arn]; lb != nil {
		return lb.Tags, nil
	}
	return nil, errf(400, "LoadBalancerNotFound", "resource %s not found", arn)
}

func (s *Server) addELBTags(f form) ([]node, *apiError) {
	for _, arn := range f.list("ResourceArns.member") {
		tags, e := s.elbTags(arn)
		if e != nil {
			return nil, e
		}
		for k, v := range f.queryTags("Tags.member") {
			tags[k] = v
		}
	}
	return nil, nil
}

func (s *Server) removeELBTags(f form) ([]node, *apiError) {
	for _, arn := range f.list("ResourceArns.member") {
		tags, e := s.elbTags(arn)
		if e != nil {
			return nil, e
		}
		for _, k := range f.list("TagKeys.member") {
			delete(tags, k)
		}
	}
	return nil, nil
}

func (s *Server) describeELBTags(f form) ([]node, *apiError) {
	var items []node
	for _, arn := range f.list("ResourceArns.member") {
		tags, e := s.elbTags(arn)
		if e != nil {
			return nil, e
		}
		items = append(items, el("", tx("ResourceArn", arn), list("Tags", "member", tagNodes(tags, "Key", "Value"))))
	}
	return []node{list("TagDescriptions", "member", items)}, nil
}
