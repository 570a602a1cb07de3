package awstest

import (
	"strconv"
	"strings"
)

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
	"SetSecurityGroups":     (*Server).setLBGroups,
	"AddTags":               (*Server).addELBTags,
	"RemoveTags":            (*Server).removeELBTags,
	"DescribeTags":          (*Server).describeELBTags,
}

func tgNode(tg *TG) node {
	return el("", tx("TargetGroupArn", tg.Arn), tx("TargetGroupName", tg.Name), tx("Protocol", tg.Protocol),
		txi("Port", tg.Port), tx("VpcId", tg.VpcID), tx("TargetType", "instance"))
}

// checkELBName applies ELBv2's rule for load balancer and target group
// names: 1–32 letters, digits and hyphens, no hyphen first or last.
func checkELBName(name string) *apiError {
	const allowed = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-"
	if name == "" || len(name) > 32 || strings.Trim(name, allowed) != "" || strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		return errf(400, "ValidationError", "Name '%s' can have a maximum of 32 characters, contain only alphanumeric characters or hyphens, and must not begin or end with a hyphen", name)
	}
	return nil
}

func (s *Server) createTG(f form) ([]node, *apiError) {
	name := f.get("Name")
	if e := checkELBName(name); e != nil {
		return nil, e
	}
	port, _ := strconv.Atoi(f.get("Port"))
	for _, tg := range s.st.TGs {
		if tg.Name == name {
			// ELBv2 answers a create with the same name and settings with
			// the existing group; other settings are a conflict.
			if tg.Port == port && tg.Protocol == f.get("Protocol") && tg.VpcID == f.get("VpcId") {
				return []node{list("TargetGroups", "member", []node{tgNode(tg)})}, nil
			}
			return nil, errf(400, "DuplicateTargetGroupName", "A target group with the same name '%s' exists", name)
		}
	}
	if _, e := s.vpc(f.get("VpcId")); e != nil {
		return nil, errf(400, "ValidationError", "%s", e.msg)
	}
	tg := &TG{Arn: s.arn("targetgroup", name), Name: name, Protocol: f.get("Protocol"), VpcID: f.get("VpcId"),
		Port: port, Draining: map[string]int{}, Tags: f.queryTags("Tags.member")}
	s.st.TGs[tg.Arn] = tg
	s.born(tg.Arn)
	return []node{list("TargetGroups", "member", []node{tgNode(tg)})}, nil
}

func (s *Server) tg(arn string) (*TG, *apiError) {
	tg := s.st.TGs[arn]
	if tg == nil || s.lagging(arn) {
		return nil, errf(400, "TargetGroupNotFound", "Target groups '%s' not found", arn)
	}
	return tg, nil
}

func (s *Server) describeTGs(f form) ([]node, *apiError) {
	arns, names := f.list("TargetGroupArns.member"), f.list("Names.member")
	if missing := s.missingNames(arns, names, s.tgNames()); len(missing) > 0 {
		return nil, errf(400, "TargetGroupNotFound", "One or more target groups not found: %s", strings.Join(missing, ", "))
	}
	keys, tail, e := s.markerPage(f, "PageSize", "NextMarker", sortedKeys(s.st.TGs))
	if e != nil {
		return nil, e
	}
	var items []node
	for _, arn := range keys {
		tg := s.st.TGs[arn]
		if (len(arns) == 0 || anyIn([]string{arn}, arns)) && (len(names) == 0 || anyIn([]string{tg.Name}, names)) {
			items = append(items, tgNode(tg))
		}
	}
	return append([]node{list("TargetGroups", "member", items)}, tail...), nil
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
			delete(tg.Draining, id)
			continue
		}
		kept := tg.Targets[:0]
		for _, t := range tg.Targets {
			if t != id {
				kept = append(kept, t)
			} else {
				tg.Draining[id] = TargetDrain // deregistration delay
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
	for _, t := range sortedKeys(tg.Draining) {
		items = append(items, el("", el("Target", tx("Id", t), txi("Port", tg.Port)),
			el("TargetHealth", tx("State", "draining"), tx("Reason", "Target.DeregistrationInProgress"))))
	}
	return []node{list("TargetHealthDescriptions", "member", items)}, nil
}

// TargetDrain is how many requests a deregistered target stays listed as
// draining (AWS's deregistration delay, 300 s by default).
const TargetDrain = 10

func (s *Server) elbTags(arn string) (map[string]string, *apiError) {
	if tg := s.st.TGs[arn]; tg != nil && !s.lagging(arn) {
		return tg.Tags, nil
	}
	if lb := s.st.LBs[arn]; lb != nil && !s.lagging(arn) {
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

// missingNames returns the ARNs or names asked for that do not exist:
// ELBv2 fails a Describe naming any missing object, whatever the page.
func (s *Server) missingNames(arns, names []string, byName map[string]string) []string {
	var out []string
	for _, a := range arns {
		if s.lagging(a) {
			out = append(out, a) // made a moment ago: not visible yet
			continue
		}
		found := false
		for _, arn := range byName {
			found = found || arn == a
		}
		if !found {
			out = append(out, a)
		}
	}
	for _, n := range names {
		if _, ok := byName[n]; !ok {
			out = append(out, n)
		}
	}
	return out
}

func (s *Server) tgNames() map[string]string {
	out := map[string]string{}
	for arn, tg := range s.st.TGs {
		out[tg.Name] = arn
	}
	return out
}

func (s *Server) lbNames() map[string]string {
	out := map[string]string{}
	for arn, lb := range s.st.LBs {
		out[lb.Name] = arn
	}
	return out
}
