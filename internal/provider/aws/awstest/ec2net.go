package awstest

import (
	"net/netip"
	"sort"
	"strings"
)

// Zone is a fake availability, Local or Wavelength Zone: Type is
// availability-zone, local-zone or wavelength-zone; OptIn is
// opt-in-not-required, opted-in or not-opted-in.
type Zone struct {
	Name, Type, OptIn string
}

// Vpc is a fake VPC.
type Vpc struct {
	ID, Cidr string
	Tags     map[string]string
}

// IGW is a fake internet gateway; VpcID is empty when detached.
type IGW struct {
	ID, VpcID string
	Tags      map[string]string
}

// Subnet is a fake subnet.
type Subnet struct {
	ID, VpcID, Cidr, Zone string
	MapPublicIP           bool
	Tags                  map[string]string
}

// RouteTable is a fake route table with its routes (destination → gateway)
// and subnet associations (association ID → subnet ID).
type RouteTable struct {
	ID, VpcID    string
	Routes       map[string]string
	Associations map[string]string
	Tags         map[string]string
}

type ec2Handler func(s *Server, f form) ([]node, *apiError)

var ec2Actions = map[string]ec2Handler{
	"DescribeAvailabilityZones": (*Server).describeAZs,
	"DescribeNetworkInterfaces": (*Server).describeENIs,
	"CreateVpc":                 (*Server).createVpc,
	"DescribeVpcs":              (*Server).describeVpcs,
	"DeleteVpc":                 (*Server).deleteVpc,
	"CreateInternetGateway":     (*Server).createIGW,
	"AttachInternetGateway":     (*Server).attachIGW,
	"DetachInternetGateway":     (*Server).detachIGW,
	"DeleteInternetGateway":     (*Server).deleteIGW,
	"DescribeInternetGateways":  (*Server).describeIGWs,
	"CreateSubnet":              (*Server).createSubnet,
	"DescribeSubnets":           (*Server).describeSubnets,
	"ModifySubnetAttribute":     (*Server).modifySubnet,
	"DeleteSubnet":              (*Server).deleteSubnet,
	"CreateRouteTable":          (*Server).createRouteTable,
	"CreateRoute":               (*Server).createRoute,
	"AssociateRouteTable":       (*Server).associateRouteTable,
	"DisassociateRouteTable":    (*Server).disassociateRouteTable,
	"DescribeRouteTables":       (*Server).describeRouteTables,
	"DeleteRouteTable":          (*Server).deleteRouteTable,
	"CreateTags":                (*Server).createTags,
	"DeleteTags":                (*Server).deleteTags,
	"CreateSecurityGroup":       (*Server).createGroup,
	"DescribeSecurityGroups":    (*Server).describeGroups,
	"DeleteSecurityGroup":       (*Server).deleteGroup,
	"AuthorizeSecurityGroupIngress": func(s *Server, f form) ([]node, *apiError) {
		return s.authorize(f, false)
	},
	"AuthorizeSecurityGroupEgress": func(s *Server, f form) ([]node, *apiError) { return s.authorize(f, true) },
	"RevokeSecurityGroupIngress":   func(s *Server, f form) ([]node, *apiError) { return s.revoke(f, false) },
	"RevokeSecurityGroupEgress":    func(s *Server, f form) ([]node, *apiError) { return s.revoke(f, true) },
	"ImportKeyPair":                (*Server).importKey,
	"DescribeKeyPairs":             (*Server).describeKeys,
	"DeleteKeyPair":                (*Server).deleteKey,
	"RunInstances":                 (*Server).runInstances,
	"DescribeInstances":            (*Server).describeInstances,
	"TerminateInstances":           func(s *Server, f form) ([]node, *apiError) { return s.setState(f, "shutting-down") },
	"StopInstances":                func(s *Server, f form) ([]node, *apiError) { return s.setState(f, "stopping") },
	"StartInstances":               func(s *Server, f form) ([]node, *apiError) { return s.setState(f, "pending") },
	"ModifyInstanceAttribute":      (*Server).modifyInstance,
}

// checkID rejects IDs of the wrong kind the way EC2 does, which is how a
// Kyku name sent where an ID belongs is caught.
func checkID(prefix, id, errPrefix string) *apiError {
	if !strings.HasPrefix(id, prefix+"-") {
		return errf(400, errPrefix+".Malformed", "Invalid id: \"%s\"", id)
	}
	return nil
}

// matches applies EC2 filters: "tag:K", "tag-key" and the given fields.
func matches(filters map[string][]string, tags map[string]string, fields map[string]string) bool {
	for name, want := range filters {
		var have []string
		switch {
		case strings.HasPrefix(name, "tag:"):
			if v, ok := tags[strings.TrimPrefix(name, "tag:")]; ok {
				have = []string{v}
			}
		case name == "tag-key":
			for k := range tags {
				have = append(have, k)
			}
		default:
			have = strings.Split(fields[name], ",")
		}
		if !anyIn(have, want) {
			return false
		}
	}
	return true
}

func anyIn(have, want []string) bool {
	for _, h := range have {
		for _, w := range want {
			if h == w && h != "" {
				return true
			}
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// describeAZs lists, like EC2 without AllAvailabilityZones, the zones
// that need no opt-in and those opted into, Local and Wavelength Zones
// included, filtered by state, zone-type, opt-in-status and zone-name.
func (s *Server) describeAZs(f form) ([]node, *apiError) {
	fl := f.filters()
	var items []node
	for _, z := range s.st.Zones {
		if z.OptIn == "not-opted-in" && f.get("AllAvailabilityZones") != "true" {
			continue
		}
		fields := map[string]string{"state": "available", "zone-type": z.Type, "opt-in-status": z.OptIn, "zone-name": z.Name}
		if !matches(fl, nil, fields) {
			continue
		}
		items = append(items, el("", tx("zoneName", z.Name), tx("zoneState", "available"), tx("regionName", "eu-west-1"),
			tx("zoneType", z.Type), tx("optInStatus", z.OptIn)))
	}
	return []node{list("availabilityZoneInfo", "item", items)}, nil
}

// zone returns the zone called name, if the account may use it.
func (s *Server) zone(name string) *Zone {
	for i, z := range s.st.Zones {
		if z.Name == name && z.OptIn != "not-opted-in" {
			return &s.st.Zones[i]
		}
	}
	return nil
}

func vpcNode(v *Vpc) node {
	return el("", tx("vpcId", v.ID), tx("cidrBlock", v.Cidr), tx("state", "available"),
		list("tagSet", "item", tagNodes(v.Tags, "key", "value")))
}

func (s *Server) createVpc(f form) ([]node, *apiError) {
	// Amazon EC2 API Reference, CreateVpc: an IPv4 CIDR block of /16 to
	// /28, written as its network address.
	if _, e := block(f.get("CidrBlock"), "InvalidVpc.Range"); e != nil {
		return nil, e
	}
	v := &Vpc{ID: s.id("vpc"), Cidr: f.get("CidrBlock"), Tags: f.tagSpecs()}
	s.st.Vpcs[v.ID] = v
	s.born(v.ID)
	// Every VPC comes with a default security group, which load balancers
	// and databases get when the request names none.
	g := &Group{ID: s.id("sg"), Name: "default", VpcID: v.ID, Tags: map[string]string{},
		Egress: []Rule{{Protocol: "-1", Cidr: "0.0.0.0/0"}}}
	s.st.Groups[g.ID] = g
	n := vpcNode(v)
	n.name = "vpc"
	return []node{n}, nil
}

// block parses a VPC or subnet CIDR block: IPv4, the network address,
// /16 to /28; code is the error code of one that is not.
func block(cidr, code string) (netip.Prefix, *apiError) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil || !p.Addr().Is4() || p != p.Masked() || p.Bits() < 16 || p.Bits() > 28 {
		return p, errf(400, code, "The CIDR '%s' is invalid.", cidr)
	}
	return p, nil
}

func (s *Server) vpc(id string) (*Vpc, *apiError) {
	if e := checkID("vpc", id, "InvalidVpcID"); e != nil {
		return nil, e
	}
	v := s.st.Vpcs[id]
	if v == nil || s.lagging(id) {
		return nil, notFound("InvalidVpcID.NotFound", id)
	}
	return v, nil
}

func (s *Server) describeVpcs(f form) ([]node, *apiError) {
	ids := f.list("VpcId")
	for _, id := range ids {
		if _, e := s.vpc(id); e != nil {
			return nil, e
		}
	}
	fl := f.filters()
	keys, tail, e := s.ec2Page(f, sortedKeys(s.st.Vpcs))
	if e != nil {
		return nil, e
	}
	var items []node
	for _, id := range keys {
		v := s.st.Vpcs[id]
		if (len(ids) == 0 || anyIn([]string{id}, ids)) && matches(fl, v.Tags, map[string]string{"vpc-id": id}) {
			items = append(items, vpcNode(v))
		}
	}
	return append([]node{list("vpcSet", "item", items)}, tail...), nil
}

func (s *Server) deleteVpc(f form) ([]node, *apiError) {
	id := f.get("VpcId")
	if _, e := s.vpc(id); e != nil {
		return nil, e
	}
	for _, sn := range s.st.Subnets {
		if sn.VpcID == id {
			return nil, errf(400, "DependencyViolation", "The vpc '%s' has dependencies and cannot be deleted.", id)
		}
	}
	for _, g := range s.st.IGWs {
		if g.VpcID == id {
			return nil, errf(400, "DependencyViolation", "The vpc '%s' has an attached internet gateway.", id)
		}
	}
	for _, g := range s.st.Groups {
		if g.VpcID == id && g.Name != "default" {
			return nil, errf(400, "DependencyViolation", "The vpc '%s' has security groups.", id)
		}
	}
	for gid, g := range s.st.Groups {
		if g.VpcID == id {
			delete(s.st.Groups, gid)
		}
	}
	delete(s.st.Vpcs, id)
	return []node{txb("return", true)}, nil
}

func igwNode(g *IGW) node {
	var att []node
	if g.VpcID != "" {
		att = append(att, el("", tx("vpcId", g.VpcID), tx("state", "available")))
	}
	return el("", tx("internetGatewayId", g.ID), list("attachmentSet", "item", att),
		list("tagSet", "item", tagNodes(g.Tags, "key", "value")))
}

func (s *Server) createIGW(f form) ([]node, *apiError) {
	g := &IGW{ID: s.id("igw"), Tags: f.tagSpecs()}
	s.st.IGWs[g.ID] = g
	n := igwNode(g)
	n.name = "internetGateway"
	return []node{n}, nil
}

func (s *Server) igw(id string) (*IGW, *apiError) {
	if e := checkID("igw", id, "InvalidInternetGatewayID"); e != nil {
		return nil, e
	}
	g := s.st.IGWs[id]
	if g == nil {
		return nil, notFound("InvalidInternetGatewayID.NotFound", id)
	}
	return g, nil
}

func (s *Server) attachIGW(f form) ([]node, *apiError) {
	g, e := s.igw(f.get("InternetGatewayId"))
	if e != nil {
		return nil, e
	}
	if _, e := s.vpc(f.get("VpcId")); e != nil {
		return nil, e
	}
	if g.VpcID != "" {
		return nil, errf(400, "Resource.AlreadyAssociated", "resource %s is already attached", g.ID)
	}
	g.VpcID = f.get("VpcId")
	return []node{txb("return", true)}, nil
}

func (s *Server) detachIGW(f form) ([]node, *apiError) {
	g, e := s.igw(f.get("InternetGatewayId"))
	if e != nil {
		return nil, e
	}
	if g.VpcID != f.get("VpcId") {
		return nil, errf(400, "Gateway.NotAttached", "gateway %s is not attached to %s", g.ID, f.get("VpcId"))
	}
	g.VpcID = ""
	return []node{txb("return", true)}, nil
}

func (s *Server) deleteIGW(f form) ([]node, *apiError) {
	g, e := s.igw(f.get("InternetGatewayId"))
	if e != nil {
		return nil, e
	}
	if g.VpcID != "" {
		return nil, errf(400, "DependencyViolation", "gateway %s is attached", g.ID)
	}
	delete(s.st.IGWs, g.ID)
	return []node{txb("return", true)}, nil
}

func (s *Server) describeIGWs(f form) ([]node, *apiError) {
	fl := f.filters()
	keys, tail, e := s.ec2Page(f, sortedKeys(s.st.IGWs))
	if e != nil {
		return nil, e
	}
	var items []node
	for _, id := range keys {
		g := s.st.IGWs[id]
		if matches(fl, g.Tags, map[string]string{"attachment.vpc-id": g.VpcID, "internet-gateway-id": id}) {
			items = append(items, igwNode(g))
		}
	}
	return append([]node{list("internetGatewaySet", "item", items)}, tail...), nil
}

func subnetNode(sn *Subnet) node {
	return el("", tx("subnetId", sn.ID), tx("vpcId", sn.VpcID), tx("cidrBlock", sn.Cidr),
		tx("availabilityZone", sn.Zone), tx("state", "available"), txb("mapPublicIpOnLaunch", sn.MapPublicIP),
		list("tagSet", "item", tagNodes(sn.Tags, "key", "value")))
}

func (s *Server) createSubnet(f form) ([]node, *apiError) {
	v, e := s.vpc(f.get("VpcId"))
	if e != nil {
		return nil, e
	}
	// Amazon EC2 API Reference, CreateSubnet: a /16 to /28 block inside
	// the VPC's (InvalidSubnet.Range) that overlaps no other subnet of it
	// (InvalidSubnet.Conflict).
	p, e := block(f.get("CidrBlock"), "InvalidSubnet.Range")
	if e != nil {
		return nil, e
	}
	if vp, err := netip.ParsePrefix(v.Cidr); err == nil && (p.Bits() < vp.Bits() || !vp.Contains(p.Addr())) {
		return nil, errf(400, "InvalidSubnet.Range", "The CIDR '%s' is invalid.", p)
	}
	for _, other := range s.st.Subnets {
		if op, err := netip.ParsePrefix(other.Cidr); err == nil && other.VpcID == v.ID && op.Overlaps(p) {
			return nil, errf(400, "InvalidSubnet.Conflict", "The CIDR '%s' conflicts with another subnet", p)
		}
	}
	zone := f.get("AvailabilityZone")
	if s.zone(zone) == nil {
		return nil, errf(400, "InvalidParameterValue", "Value (%s) for parameter availabilityZone is invalid.", zone)
	}
	sn := &Subnet{ID: s.id("subnet"), VpcID: f.get("VpcId"), Cidr: f.get("CidrBlock"), Zone: zone, Tags: f.tagSpecs()}
	s.st.Subnets[sn.ID] = sn
	s.born(sn.ID)
	n := subnetNode(sn)
	n.name = "subnet"
	return []node{n}, nil
}

func (s *Server) subnet(id string) (*Subnet, *apiError) {
	if e := checkID("subnet", id, "InvalidSubnetID"); e != nil {
		return nil, e
	}
	sn := s.st.Subnets[id]
	if sn == nil || s.lagging(id) {
		return nil, notFound("InvalidSubnetID.NotFound", id)
	}
	return sn, nil
}

func (s *Server) describeSubnets(f form) ([]node, *apiError) {
	ids := f.list("SubnetId")
	for _, id := range ids {
		if _, e := s.subnet(id); e != nil {
			return nil, e
		}
	}
	fl := f.filters()
	keys, tail, e := s.ec2Page(f, sortedKeys(s.st.Subnets))
	if e != nil {
		return nil, e
	}
	var items []node
	for _, id := range keys {
		sn := s.st.Subnets[id]
		fields := map[string]string{"vpc-id": sn.VpcID, "subnet-id": id, "map-public-ip-on-launch": boolStr(sn.MapPublicIP)}
		if (len(ids) == 0 || anyIn([]string{id}, ids)) && matches(fl, sn.Tags, fields) {
			items = append(items, subnetNode(sn))
		}
	}
	return append([]node{list("subnetSet", "item", items)}, tail...), nil
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func (s *Server) modifySubnet(f form) ([]node, *apiError) {
	sn, e := s.subnet(f.get("SubnetId"))
	if e != nil {
		return nil, e
	}
	if v := f.get("MapPublicIpOnLaunch.Value"); v != "" {
		sn.MapPublicIP = v == "true"
	}
	return []node{txb("return", true)}, nil
}

func (s *Server) deleteSubnet(f form) ([]node, *apiError) {
	sn, e := s.subnet(f.get("SubnetId"))
	if e != nil {
		return nil, e
	}
	for _, in := range s.st.Instances {
		if in.SubnetID == sn.ID && in.State != "terminated" {
			return nil, errf(400, "DependencyViolation", "subnet %s has instances", sn.ID)
		}
	}
	if n := s.eniUsing(sn.ID, ""); n != nil {
		return nil, errf(400, "DependencyViolation", "The subnet '%s' has dependencies and cannot be deleted.", sn.ID)
	}
	for _, rt := range s.st.RouteTables {
		for _, sid := range rt.Associations {
			if sid == sn.ID {
				return nil, errf(400, "DependencyViolation", "subnet %s has a route table association", sn.ID)
			}
		}
	}
	delete(s.st.Subnets, sn.ID)
	return []node{txb("return", true)}, nil
}
