package awstest

import "strings"

func rtNode(rt *RouteTable) node {
	var routes, assocs []node
	for _, dst := range sortedKeys(rt.Routes) {
		routes = append(routes, el("", tx("destinationCidrBlock", dst), tx("gatewayId", rt.Routes[dst]), tx("state", "active")))
	}
	for _, aid := range sortedKeys(rt.Associations) {
		assocs = append(assocs, el("", tx("routeTableAssociationId", aid), tx("routeTableId", rt.ID),
			tx("subnetId", rt.Associations[aid]), txb("main", false)))
	}
	return el("", tx("routeTableId", rt.ID), tx("vpcId", rt.VpcID), list("routeSet", "item", routes),
		list("associationSet", "item", assocs), list("tagSet", "item", tagNodes(rt.Tags, "key", "value")))
}

func (s *Server) routeTable(id string) (*RouteTable, *apiError) {
	if e := checkID("rtb", id, "InvalidRouteTableID"); e != nil {
		return nil, e
	}
	rt := s.st.RouteTables[id]
	if rt == nil {
		return nil, notFound("InvalidRouteTableID.NotFound", id)
	}
	return rt, nil
}

func (s *Server) createRouteTable(f form) ([]node, *apiError) {
	v, e := s.vpc(f.get("VpcId"))
	if e != nil {
		return nil, e
	}
	rt := &RouteTable{ID: s.id("rtb"), VpcID: v.ID, Routes: map[string]string{v.Cidr: "local"},
		Associations: map[string]string{}, Tags: f.tagSpecs()}
	s.st.RouteTables[rt.ID] = rt
	n := rtNode(rt)
	n.name = "routeTable"
	return []node{n}, nil
}

func (s *Server) createRoute(f form) ([]node, *apiError) {
	rt, e := s.routeTable(f.get("RouteTableId"))
	if e != nil {
		return nil, e
	}
	g, e := s.igw(f.get("GatewayId"))
	if e != nil {
		return nil, e
	}
	if g.VpcID != rt.VpcID {
		return nil, errf(400, "InvalidParameterValue", "route table %s and network gateway %s belong to different networks", rt.ID, g.ID)
	}
	dst := f.get("DestinationCidrBlock")
	if _, ok := rt.Routes[dst]; ok {
		return nil, errf(400, "RouteAlreadyExists", "The route identified by %s already exists.", dst)
	}
	rt.Routes[dst] = g.ID
	return []node{txb("return", true)}, nil
}

func (s *Server) associateRouteTable(f form) ([]node, *apiError) {
	rt, e := s.routeTable(f.get("RouteTableId"))
	if e != nil {
		return nil, e
	}
	sn, e := s.subnet(f.get("SubnetId"))
	if e != nil {
		return nil, e
	}
	for _, other := range s.st.RouteTables {
		for _, sid := range other.Associations {
			if sid == sn.ID {
				return nil, errf(400, "Resource.AlreadyAssociated", "subnet %s already has a route table", sn.ID)
			}
		}
	}
	aid := s.id("rtbassoc")
	rt.Associations[aid] = sn.ID
	return []node{tx("associationId", aid)}, nil
}

func (s *Server) disassociateRouteTable(f form) ([]node, *apiError) {
	aid := f.get("AssociationId")
	for _, rt := range s.st.RouteTables {
		if _, ok := rt.Associations[aid]; ok {
			delete(rt.Associations, aid)
			return []node{txb("return", true)}, nil
		}
	}
	return nil, notFound("InvalidAssociationID.NotFound", aid)
}

func (s *Server) describeRouteTables(f form) ([]node, *apiError) {
	fl := f.filters()
	keys, tail, e := s.ec2Page(f, sortedKeys(s.st.RouteTables))
	if e != nil {
		return nil, e
	}
	var items []node
	for _, id := range keys {
		rt := s.st.RouteTables[id]
		var subnets []string
		for _, sid := range rt.Associations {
			subnets = append(subnets, sid)
		}
		fields := map[string]string{"vpc-id": rt.VpcID, "route-table-id": id, "association.subnet-id": strings.Join(subnets, ",")}
		if matches(fl, rt.Tags, fields) {
			items = append(items, rtNode(rt))
		}
	}
	return append([]node{list("routeTableSet", "item", items)}, tail...), nil
}

func (s *Server) deleteRouteTable(f form) ([]node, *apiError) {
	rt, e := s.routeTable(f.get("RouteTableId"))
	if e != nil {
		return nil, e
	}
	if len(rt.Associations) > 0 {
		return nil, errf(400, "DependencyViolation", "The routeTable '%s' has dependencies and cannot be deleted.", rt.ID)
	}
	delete(s.st.RouteTables, rt.ID)
	return []node{txb("return", true)}, nil
}

// tagsOf finds the tag map of any EC2 object by ID.
func (s *Server) tagsOf(id string) (map[string]string, *apiError) {
	switch {
	case s.st.Vpcs[id] != nil:
		return s.st.Vpcs[id].Tags, nil
	case s.st.IGWs[id] != nil:
		return s.st.IGWs[id].Tags, nil
	case s.st.Subnets[id] != nil:
		return s.st.Subnets[id].Tags, nil
	case s.st.RouteTables[id] != nil:
		return s.st.RouteTables[id].Tags, nil
	case s.st.Groups[id] != nil:
		return s.st.Groups[id].Tags, nil
	case s.st.Keys[id] != nil:
		return s.st.Keys[id].Tags, nil
	case s.st.Instances[id] != nil:
		return s.st.Instances[id].Tags, nil
	}
	return nil, errf(400, "InvalidID", "The ID '%s' is not valid", id)
}

func (s *Server) createTags(f form) ([]node, *apiError) {
	for _, id := range f.list("ResourceId") {
		tags, e := s.tagsOf(id)
		if e != nil {
			return nil, e
		}
		for k, v := range f.ec2Tags("Tag") {
			tags[k] = v
		}
	}
	return []node{txb("return", true)}, nil
}

func (s *Server) deleteTags(f form) ([]node, *apiError) {
	for _, id := range f.list("ResourceId") {
		tags, e := s.tagsOf(id)
		if e != nil {
			return nil, e
		}
		for k := range f.ec2Tags("Tag") {
			delete(tags, k)
		}
	}
	return []node{txb("return", true)}, nil
}
