package awstest

import "strings"

// ENI is a network interface an AWS service put into a subnet: one per
// subnet for a load balancer, one for an RDS instance. When its owner is
// deleted it lingers for ENILinger requests, and while it exists the
// subnet and its security groups cannot be deleted (DependencyViolation),
// as on AWS, where they go minutes after the load balancer or database.
type ENI struct {
	ID, SubnetID, VpcID, Description, Owner string
	Groups                                  []string
	Linger                                  int // > 0: the owner is gone; requests left
}

// ENILinger is how many requests a deleted owner's interfaces stay.
const ENILinger = 5

// addENIs gives owner one interface in each subnet.
func (s *Server) addENIs(owner, description string, subnets, groups []string) {
	for _, sid := range subnets {
		sn := s.st.Subnets[sid]
		if sn == nil {
			continue
		}
		id := s.id("eni")
		s.st.ENIs[id] = &ENI{ID: id, SubnetID: sid, VpcID: sn.VpcID, Description: description, Owner: owner,
			Groups: append([]string(nil), groups...)}
	}
}

// releaseENIs starts the linger of owner's interfaces.
func (s *Server) releaseENIs(owner string) {
	for _, n := range s.st.ENIs {
		if n.Owner == owner && n.Linger == 0 {
			n.Linger = ENILinger
		}
	}
}

// setENIGroups changes the security groups of owner's interfaces.
func (s *Server) setENIGroups(owner string, groups []string) {
	for _, n := range s.st.ENIs {
		if n.Owner == owner && n.Linger == 0 {
			n.Groups = append([]string(nil), groups...)
		}
	}
}

// eniUsing returns an interface in subnet sid or with group gid, if any.
func (s *Server) eniUsing(sid, gid string) *ENI {
	for _, id := range sortedKeys(s.st.ENIs) {
		n := s.st.ENIs[id]
		if (sid != "" && n.SubnetID == sid) || (gid != "" && anyIn(n.Groups, []string{gid})) {
			return n
		}
	}
	return nil
}

func (s *Server) describeENIs(f form) ([]node, *apiError) {
	fl := f.filters()
	keys, tail, e := s.ec2Page(f, sortedKeys(s.st.ENIs))
	if e != nil {
		return nil, e
	}
	var items []node
	for _, id := range keys {
		n := s.st.ENIs[id]
		status := "in-use"
		if n.Linger > 0 {
			status = "available"
		}
		fields := map[string]string{"subnet-id": n.SubnetID, "vpc-id": n.VpcID, "group-id": strings.Join(n.Groups, ","),
			"network-interface-id": id, "requester-managed": "true", "status": status, "description": n.Description}
		if !matches(fl, nil, fields) {
			continue
		}
		var groups []node
		for _, g := range n.Groups {
			groups = append(groups, el("", tx("groupId", g)))
		}
		items = append(items, el("", tx("networkInterfaceId", id), tx("subnetId", n.SubnetID), tx("vpcId", n.VpcID),
			tx("description", n.Description), txb("requesterManaged", true), tx("status", status),
			tx("interfaceType", "interface"), list("groupSet", "item", groups)))
	}
	return append([]node{list("networkInterfaceSet", "item", items)}, tail...), nil
}
