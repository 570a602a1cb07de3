package awstest

import (
	"encoding/base64"
	"fmt"
	"net/netip"
	"sort"
	"strings"
)

// Rule is one security group permission for one CIDR.
type Rule struct {
	Protocol, FromPort, ToPort, Cidr string
}

// Group is a fake security group.
type Group struct {
	ID, Name, VpcID string
	Ingress, Egress []Rule
	Tags            map[string]string
}

// Key is a fake key pair.
type Key struct {
	ID, Name, PublicKey string
	Tags                map[string]string
}

// Instance is a fake EC2 instance; State moves pending→running,
// stopping→stopped and shutting-down→terminated on the next Describe.
type Instance struct {
	ID, ImageID, Type, State, SubnetID, VpcID, KeyName, PrivateIP, PublicIP, UserData string
	Groups                                                                            []string
	Tags                                                                              map[string]string
	// LaunchFails makes the instance go pending → terminated (FailLaunch);
	// StateReason then says why, as EC2's stateReason does.
	LaunchFails bool
	StateReason string
}

func ruleNodes(rules []Rule) []node {
	var out []node
	for _, r := range rules {
		kids := []node{tx("ipProtocol", r.Protocol)}
		if r.FromPort != "" {
			kids = append(kids, tx("fromPort", r.FromPort), tx("toPort", r.ToPort))
		}
		kids = append(kids, list("ipRanges", "item", []node{el("", tx("cidrIp", r.Cidr))}))
		out = append(out, el("", kids...))
	}
	return out
}

func (s *Server) group(id string) (*Group, *apiError) {
	if e := checkID("sg", id, "InvalidGroupId"); e != nil {
		return nil, e
	}
	g := s.st.Groups[id]
	if g == nil || s.lagging(id) {
		return nil, notFound("InvalidGroup.NotFound", id)
	}
	return g, nil
}

// checkGroupName applies EC2's rule for VPC security group names.
func checkGroupName(name string) *apiError {
	const allowed = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ._-:/()#,@[]+=&;{}!$*"
	switch {
	case name == "" || len(name) > 255:
		return errf(400, "InvalidParameterValue", "Group name must be 1 to 255 characters")
	case strings.HasPrefix(strings.ToLower(name), "sg-"):
		return errf(400, "InvalidParameterValue", "Group names may not be in the format sg-*")
	case strings.Trim(name, allowed) != "":
		return errf(400, "InvalidParameterValue", "Invalid security group name %q: character sets beyond a-z, A-Z, 0-9, spaces and ._-:/()#,@[]+=&;{}!$* are not allowed", name)
	}
	return nil
}

func (s *Server) createGroup(f form) ([]node, *apiError) {
	v, e := s.vpc(f.get("VpcId"))
	if e != nil {
		return nil, e
	}
	name := f.get("GroupName")
	if e := checkGroupName(name); e != nil {
		return nil, e
	}
	for _, g := range s.st.Groups {
		if g.VpcID == v.ID && g.Name == name {
			return nil, errf(400, "InvalidGroup.Duplicate", "The security group '%s' already exists for VPC '%s'", name, v.ID)
		}
	}
	g := &Group{ID: s.id("sg"), Name: name, VpcID: v.ID, Tags: f.tagSpecs(),
		Egress: []Rule{{Protocol: "-1", Cidr: "0.0.0.0/0"}}}
	s.st.Groups[g.ID] = g
	s.born(g.ID)
	return []node{tx("groupId", g.ID)}, nil
}

func (s *Server) describeGroups(f form) ([]node, *apiError) {
	ids := f.list("GroupId")
	for _, id := range ids {
		if _, e := s.group(id); e != nil {
			return nil, e
		}
	}
	fl := f.filters()
	keys, tail, e := s.ec2Page(f, sortedKeys(s.st.Groups))
	if e != nil {
		return nil, e
	}
	var items []node
	for _, id := range keys {
		g := s.st.Groups[id]
		if (len(ids) == 0 || anyIn([]string{id}, ids)) && matches(fl, g.Tags, map[string]string{"vpc-id": g.VpcID, "group-name": g.Name, "group-id": id}) {
			items = append(items, el("", tx("groupId", g.ID), tx("groupName", g.Name), tx("vpcId", g.VpcID),
				tx("groupDescription", "kyku"), list("ipPermissions", "item", ruleNodes(g.Ingress)),
				list("ipPermissionsEgress", "item", ruleNodes(g.Egress)),
				list("tagSet", "item", tagNodes(g.Tags, "key", "value"))))
		}
	}
	return append([]node{list("securityGroupInfo", "item", items)}, tail...), nil
}

func (s *Server) deleteGroup(f form) ([]node, *apiError) {
	g, e := s.group(f.get("GroupId"))
	if e != nil {
		return nil, e
	}
	if g.Name == "default" {
		return nil, errf(400, "CannotDelete", "the default security group cannot be deleted")
	}
	inUse := s.eniUsing("", g.ID) != nil
	for _, in := range s.st.Instances {
		inUse = inUse || (in.State != "terminated" && anyIn(in.Groups, []string{g.ID}))
	}
	for _, lb := range s.st.LBs {
		inUse = inUse || anyIn(lb.Groups, []string{g.ID})
	}
	for _, db := range s.st.DBs {
		inUse = inUse || anyIn(db.Groups, []string{g.ID})
	}
	if inUse {
		return nil, errf(400, "DependencyViolation", "resource %s has a dependent object", g.ID)
	}
	delete(s.st.Groups, g.ID)
	return []node{txb("return", true)}, nil
}

// same reports whether two rules are one permission: protocol -1 means
// every port whatever range comes with it (Amazon EC2 API Reference,
// IpPermission, IpProtocol: "traffic on all ports is allowed, regardless
// of any ports you specify"), so a revoke of it matches without ports.
func same(a, b Rule) bool {
	if a.Protocol == "-1" && b.Protocol == "-1" {
		return a.Cidr == b.Cidr
	}
	return a == b
}

func permRules(f form) []Rule {
	var out []Rule
	for _, p := range f.structs("IpPermissions") {
		for _, c := range f.structs(p + ".IpRanges") {
			out = append(out, Rule{Protocol: f.get(p + ".IpProtocol"), FromPort: f.get(p + ".FromPort"),
				ToPort: f.get(p + ".ToPort"), Cidr: f.get(c + ".CidrIp")})
		}
	}
	return out
}

func (s *Server) authorize(f form, egress bool) ([]node, *apiError) {
	g, e := s.group(f.get("GroupId"))
	if e != nil {
		return nil, e
	}
	rules := &g.Ingress
	if egress {
		rules = &g.Egress
	}
	for _, r := range permRules(f) {
		for _, have := range *rules {
			if same(have, r) {
				return nil, errf(400, "InvalidPermission.Duplicate", "the specified rule already exists")
			}
		}
		// Amazon VPC quotas: 60 inbound and 60 outbound rules per
		// security group (the default); AuthorizeSecurityGroupIngress
		// answers RulesPerSecurityGroupLimitExceeded beyond.
		if len(*rules) >= MaxRulesPerGroup {
			return nil, errf(400, "RulesPerSecurityGroupLimitExceeded", "The maximum number of rules per security group has been reached.")
		}
		if p, err := netip.ParsePrefix(r.Cidr); err != nil || p != p.Masked() {
			return nil, errf(400, "InvalidParameterValue", "CIDR block %s is malformed", r.Cidr)
		}
		*rules = append(*rules, r)
	}
	return []node{txb("return", true)}, nil
}

func (s *Server) revoke(f form, egress bool) ([]node, *apiError) {
	g, e := s.group(f.get("GroupId"))
	if e != nil {
		return nil, e
	}
	rules := &g.Ingress
	if egress {
		rules = &g.Egress
	}
	for _, r := range permRules(f) {
		kept := (*rules)[:0]
		found := false
		for _, have := range *rules {
			if same(have, r) {
				found = true
				continue
			}
			kept = append(kept, have)
		}
		if !found {
			return nil, errf(400, "InvalidPermission.NotFound", "The specified rule does not exist in this security group.")
		}
		*rules = kept
	}
	return []node{txb("return", true)}, nil
}

func keyNode(k *Key, withPublic bool) node {
	n := el("", tx("keyPairId", k.ID), tx("keyName", k.Name), tx("keyFingerprint", "00:11"),
		list("tagSet", "item", tagNodes(k.Tags, "key", "value")))
	if withPublic {
		// AWS answers with the material and its own comment.
		f := strings.Fields(k.PublicKey)
		if len(f) >= 2 {
			n.kids = append(n.kids, tx("publicKey", f[0]+" "+f[1]+" "+k.Name))
		}
	}
	return n
}

func (s *Server) importKey(f form) ([]node, *apiError) {
	name := f.get("KeyName")
	for _, k := range s.st.Keys {
		if k.Name == name {
			return nil, errf(400, "InvalidKeyPair.Duplicate", "The keypair already exists")
		}
	}
	if name == "" || len(name) > 255 {
		return nil, errf(400, "InvalidParameterValue", "Key name must be 1 to 255 ASCII characters")
	}
	material, err := base64.StdEncoding.DecodeString(f.get("PublicKeyMaterial"))
	if err != nil {
		return nil, errf(400, "InvalidKey.Format", "Key is not in valid OpenSSH public key format")
	}
	if _, err := parseOpenSSHKey(string(material)); err != nil {
		return nil, errf(400, "InvalidKey.Format", "Key is not in valid OpenSSH public key format: %v", err)
	}
	k := &Key{ID: s.id("key"), Name: name, PublicKey: string(material), Tags: f.tagSpecs()}
	s.st.Keys[k.ID] = k
	s.born(k.ID)
	return keyNode(k, false).kids, nil
}

func (s *Server) describeKeys(f form) ([]node, *apiError) {
	ids, names := f.list("KeyPairId"), f.list("KeyName")
	// Like EC2: one missing ID or name fails the whole call.
	for _, id := range ids {
		if s.st.Keys[id] == nil || s.lagging(id) {
			return nil, notFound("InvalidKeyPair.NotFound", id)
		}
	}
	for _, n := range names {
		found := false
		for _, k := range s.st.Keys {
			found = found || (k.Name == n && !s.lagging(k.ID))
		}
		if !found {
			return nil, notFound("InvalidKeyPair.NotFound", n)
		}
	}
	var items []node
	for _, id := range sortedKeys(s.st.Keys) {
		k := s.st.Keys[id]
		fields := map[string]string{"key-pair-id": id, "key-name": k.Name}
		if (len(ids) == 0 || anyIn([]string{id}, ids)) && (len(names) == 0 || anyIn([]string{k.Name}, names)) &&
			matches(f.filters(), k.Tags, fields) {
			items = append(items, keyNode(k, f.get("IncludePublicKey") == "true"))
		}
	}
	return []node{list("keySet", "item", items)}, nil
}

func (s *Server) deleteKey(f form) ([]node, *apiError) {
	id := f.get("KeyPairId")
	if _, ok := s.st.Keys[id]; !ok {
		return nil, notFound("InvalidKeyPair.NotFound", id)
	}
	delete(s.st.Keys, id)
	return []node{txb("return", true)}, nil
}

var stateCodes = map[string]int{"pending": 0, "running": 16, "shutting-down": 32, "terminated": 48, "stopping": 64, "stopped": 80}

func instNode(in *Instance) node {
	var groups []node
	for _, g := range in.Groups {
		groups = append(groups, el("", tx("groupId", g)))
	}
	kids := []node{tx("instanceId", in.ID), tx("imageId", in.ImageID), tx("instanceType", in.Type),
		el("instanceState", txi("code", stateCodes[in.State]), tx("name", in.State)),
		tx("subnetId", in.SubnetID), tx("vpcId", in.VpcID), tx("privateIpAddress", in.PrivateIP),
		list("groupSet", "item", groups), list("tagSet", "item", tagNodes(in.Tags, "key", "value"))}
	if in.KeyName != "" {
		kids = append(kids, tx("keyName", in.KeyName))
	}
	if in.PublicIP != "" && in.State == "running" {
		kids = append(kids, tx("ipAddress", in.PublicIP))
	}
	if in.StateReason != "" {
		code, msg, _ := strings.Cut(in.StateReason, ": ")
		kids = append(kids, el("stateReason", tx("code", code), tx("message", msg)))
	}
	return el("", kids...)
}

func (s *Server) runInstances(f form) ([]node, *apiError) {
	if id, ok := s.tokens[f.get("ClientToken")]; ok && f.get("ClientToken") != "" {
		// An idempotent retry: the instance of the first request.
		in := s.st.Instances[id]
		return []node{tx("reservationId", "r-1"), list("instancesSet", "item", []node{instNode(in)})}, nil
	}
	img := f.get("ImageId")
	if e := checkID("ami", img, "InvalidAMIID"); e != nil {
		return nil, e
	}
	sn, e := s.subnet(f.get("SubnetId"))
	if e != nil {
		return nil, e
	}
	groups := f.list("SecurityGroupId")
	if len(groups) > MaxGroupsPerInterface {
		return nil, errf(400, "SecurityGroupsPerInterfaceLimitExceeded", "You have exceeded the maximum number of security groups allowed per network interface (%d).", MaxGroupsPerInterface)
	}
	for _, g := range groups {
		if _, e := s.group(g); e != nil {
			return nil, e
		}
	}
	key := f.get("KeyName")
	if key != "" {
		found := false
		for _, k := range s.st.Keys {
			found = found || k.Name == key
		}
		if !found {
			return nil, notFound("InvalidKeyPair.NotFound", key)
		}
	}
	s.seq++
	in := &Instance{ID: fmt.Sprintf("i-%017x", s.seq), ImageID: img, Type: f.get("InstanceType"), State: "pending",
		SubnetID: sn.ID, VpcID: sn.VpcID, KeyName: key, Groups: groups, UserData: f.get("UserData"),
		PrivateIP: fmt.Sprintf("10.0.%d.%d", s.seq/250, s.seq%250+4), Tags: f.tagSpecs()}
	if sn.MapPublicIP {
		in.PublicIP = fmt.Sprintf("203.0.113.%d", s.seq%250+1)
	}
	if s.launches > 0 {
		s.launches--
		in.LaunchFails = true
	}
	sort.Strings(in.Groups)
	s.st.Instances[in.ID] = in
	s.born(in.ID)
	if t := f.get("ClientToken"); t != "" {
		s.tokens[t] = in.ID
	}
	return []node{tx("reservationId", "r-1"), list("instancesSet", "item", []node{instNode(in)})}, nil
}

func (s *Server) instance(id string) (*Instance, *apiError) {
	if e := checkID("i", id, "InvalidInstanceID"); e != nil {
		return nil, e
	}
	in := s.st.Instances[id]
	if in == nil || s.lagging(id) {
		return nil, notFound("InvalidInstanceID.NotFound", id)
	}
	return in, nil
}

var settle = map[string]string{"pending": "running", "stopping": "stopped", "shutting-down": "terminated"}

func (s *Server) describeInstances(f form) ([]node, *apiError) {
	ids := f.list("InstanceId")
	for _, id := range ids {
		if _, e := s.instance(id); e != nil {
			return nil, e
		}
	}
	fl := f.filters()
	keys, tail, e := s.ec2Page(f, sortedKeys(s.st.Instances))
	if e != nil {
		return nil, e
	}
	var items []node
	for _, id := range keys {
		in := s.st.Instances[id]
		fields := map[string]string{"instance-state-name": in.State, "vpc-id": in.VpcID, "subnet-id": in.SubnetID, "instance-id": id}
		if (len(ids) == 0 || anyIn([]string{id}, ids)) && matches(fl, in.Tags, fields) {
			items = append(items, el("", tx("reservationId", "r-1"), list("instancesSet", "item", []node{instNode(in)})))
			if next, ok := settle[in.State]; ok {
				in.State = next
				if next == "running" && in.LaunchFails {
					in.State, in.LaunchFails = "terminated", false
					in.StateReason = "Server.InternalError: Internal error on launch"
				}
			}
		}
	}
	return append([]node{list("reservationSet", "item", items)}, tail...), nil
}

func (s *Server) setState(f form, to string) ([]node, *apiError) {
	var items []node
	for _, id := range f.list("InstanceId") {
		in, e := s.instance(id)
		if e != nil {
			return nil, e
		}
		prev := in.State
		switch {
		case to == "stopping" && prev != "running":
			return nil, errf(400, "IncorrectInstanceState", "instance %s is %s", id, prev)
		case to == "pending" && prev != "stopped":
			return nil, errf(400, "IncorrectInstanceState", "instance %s is %s", id, prev)
		}
		if prev != "terminated" {
			in.State = to
		}
		if to == "pending" && in.PublicIP != "" {
			// A stopped instance loses its public IPv4 address; it gets
			// a new one when it starts.
			s.seq++
			in.PublicIP = fmt.Sprintf("198.51.100.%d", s.seq%250+1)
		}
		items = append(items, el("", tx("instanceId", id),
			el("currentState", txi("code", stateCodes[in.State]), tx("name", in.State)),
			el("previousState", txi("code", stateCodes[prev]), tx("name", prev))))
	}
	return []node{list("instancesSet", "item", items)}, nil
}

func (s *Server) modifyInstance(f form) ([]node, *apiError) {
	in, e := s.instance(f.get("InstanceId"))
	if e != nil {
		return nil, e
	}
	if t := f.get("InstanceType.Value"); t != "" {
		if in.State != "stopped" {
			return nil, errf(400, "IncorrectInstanceState", "The instance '%s' is not in the 'stopped' state.", in.ID)
		}
		in.Type = t
	}
	// Amazon EC2 API Reference, ModifyInstanceAttribute: Groups replaces
	// the security groups of the instance's interface (groups of its VPC,
	// within the per-interface quota). Nothing else of an instance's
	// network (subnet, VPC) is an attribute it can change.
	if groups := f.list("GroupId"); len(groups) > 0 {
		if len(groups) > MaxGroupsPerInterface {
			return nil, errf(400, "SecurityGroupsPerInterfaceLimitExceeded", "You have exceeded the maximum number of security groups allowed per network interface (%d).", MaxGroupsPerInterface)
		}
		for _, id := range groups {
			g, e := s.group(id)
			if e != nil {
				return nil, e
			}
			if g.VpcID != in.VpcID {
				return nil, errf(400, "InvalidGroup.NotFound", "The security group '%s' does not exist in VPC '%s'", id, in.VpcID)
			}
		}
		in.Groups = sorted(groups)
	}
	return []node{txb("return", true)}, nil
}
