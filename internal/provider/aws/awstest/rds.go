package awstest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// DBSubnetGroup is a fake RDS DB subnet group.
type DBSubnetGroup struct {
	Name, VpcID string
	Subnets     []string
	Tags        map[string]string
}

// DB is a fake RDS instance. Each Describe shows the next Script step
// (creating, backing-up; after a modification: available with its pending
// values, modifying, a blip of available, modifying again, then
// storage-optimization for a while when storage grew) and, once the
// script is done, Status. A deleted instance shows deleting once, then is
// gone.
type DB struct {
	ID, Class, Engine, Version, Status, SubnetGroup string
	Storage                                         int
	ManagedPassword, Public                         bool
	Groups                                          []string
	Tags                                            map[string]string
	Pending                                         *Pending
	Script                                          []Step
	// StorageChanged is when its storage last began to change (zero:
	// never since it was made).
	StorageChanged time.Time
}

// DBEvent is one RDS event (Amazon RDS API Reference, DescribeEvents).
type DBEvent struct {
	Time       time.Time
	Source     string // the DB instance identifier
	Message    string
	Categories []string
}

// StorageCooldown is how long after a storage change RDS refuses the next
// one: "you can't make further storage modifications for either six (6)
// hours or while the DB instance is in storage-optimization, whichever is
// longer" (Amazon RDS User Guide, Working with storage for Amazon RDS DB
// instances, Increasing DB instance storage capacity).
const StorageCooldown = 6 * time.Hour

// Pending is a modification RDS accepted but has not applied yet.
type Pending struct {
	Class, Version string
	Storage        int
	Groups         []string
}

// Step is one status a Describe shows; Apply applies the pending
// modification when it is shown.
type Step struct {
	Status string
	Apply  bool
}

// StorageOptimizing is how many Describes a DB stays in
// storage-optimization after its storage grew (on AWS: hours).
const StorageOptimizing = 40

var rdsActions = map[string]queryHandler{
	"CreateDBSubnetGroup":    (*Server).createDBSubnetGroup,
	"ModifyDBSubnetGroup":    (*Server).modifyDBSubnetGroup,
	"DescribeDBSubnetGroups": (*Server).describeDBSubnetGroups,
	"DeleteDBSubnetGroup":    (*Server).deleteDBSubnetGroup,
	"CreateDBInstance":       (*Server).createDB,
	"DescribeDBInstances":    (*Server).describeDBs,
	"ModifyDBInstance":       (*Server).modifyDB,
	"DeleteDBInstance":       (*Server).deleteDB,
	"DescribeEvents":         (*Server).describeEvents,
	"AddTagsToResource":      (*Server).addDBTags,
	"RemoveTagsFromResource": (*Server).removeDBTags,
}

// dbIdentRE is RDS's rule for DB instance identifiers (it stores them in
// lower case): a letter, then letters, digits and hyphens, 63 at most, no
// two hyphens in a row, no hyphen last.
var dbIdentRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9-]{0,62}$`)

func checkDBIdent(id string) *apiError {
	if !dbIdentRE.MatchString(id) || strings.Contains(id, "--") || strings.HasSuffix(id, "-") {
		return errf(400, "InvalidParameterValue", "The parameter DBInstanceIdentifier is not a valid identifier. Identifiers must begin with a letter; must contain only ASCII letters, digits, and hyphens; and must not end with a hyphen or contain two consecutive hyphens.")
	}
	return nil
}

func checkSubnetGroupName(name string) *apiError {
	const allowed = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._- "
	if name == "" || len(name) > 255 || strings.Trim(name, allowed) != "" || strings.EqualFold(name, "default") {
		return errf(400, "InvalidParameterValue", "DBSubnetGroupName must be 1 to 255 letters, digits, periods, underscores, spaces or hyphens, and not default")
	}
	return nil
}

// dbMajor is the major version of an engine version: "16" of "16.4",
// "9.6" of "9.6.24", "8.0" of "8.0.35".
func dbMajor(engine, version string) string {
	parts := strings.Split(version, ".")
	if n, err := strconv.Atoi(parts[0]); err == nil && engine == "postgres" && n >= 10 {
		return parts[0]
	}
	if len(parts) >= 2 {
		return parts[0] + "." + parts[1]
	}
	return version
}

func (s *Server) groupSubnets(f form) ([]string, string, *apiError) {
	var subnets []string
	vpc := ""
	for _, id := range f.list("SubnetIds.SubnetIdentifier") {
		sn, e := s.subnet(id)
		if e != nil {
			return nil, "", errf(400, "InvalidSubnet", "%s", e.msg)
		}
		if vpc != "" && sn.VpcID != vpc {
			return nil, "", errf(400, "InvalidParameterValue", "subnets of a DB subnet group must be in one VPC")
		}
		vpc = sn.VpcID
		subnets = append(subnets, id)
	}
	if len(subnets) == 0 {
		return nil, "", errf(400, "InvalidParameterValue", "a DB subnet group needs subnets")
	}
	return sorted(subnets), vpc, nil
}

func (s *Server) subnetGroupNode(g *DBSubnetGroup) node {
	var subnets []node
	for _, id := range g.Subnets {
		zone := ""
		if sn := s.st.Subnets[id]; sn != nil {
			zone = sn.Zone
		}
		subnets = append(subnets, el("", tx("SubnetIdentifier", id), el("SubnetAvailabilityZone", tx("Name", zone)), tx("SubnetStatus", "Active")))
	}
	return el("DBSubnetGroup", tx("DBSubnetGroupName", g.Name), tx("VpcId", g.VpcID), tx("SubnetGroupStatus", "Complete"),
		list("Subnets", "Subnet", subnets))
}

func (s *Server) createDBSubnetGroup(f form) ([]node, *apiError) {
	name := strings.ToLower(f.get("DBSubnetGroupName"))
	if e := checkSubnetGroupName(name); e != nil {
		return nil, e
	}
	if s.st.DBSubnetGroups[name] != nil {
		return nil, errf(400, "DBSubnetGroupAlreadyExists", "DB subnet group %s already exists", name)
	}
	subnets, vpc, e := s.groupSubnets(f)
	if e != nil {
		return nil, e
	}
	g := &DBSubnetGroup{Name: name, VpcID: vpc, Subnets: subnets, Tags: f.queryTags("Tags.Tag")}
	s.st.DBSubnetGroups[name] = g
	return []node{s.subnetGroupNode(g)}, nil
}

func (s *Server) modifyDBSubnetGroup(f form) ([]node, *apiError) {
	name := strings.ToLower(f.get("DBSubnetGroupName"))
	g := s.st.DBSubnetGroups[name]
	if g == nil {
		return nil, errf(404, "DBSubnetGroupNotFoundFault", "DB subnet group %s not found", name)
	}
	subnets, vpc, e := s.groupSubnets(f)
	if e != nil {
		return nil, e
	}
	if vpc != g.VpcID {
		return nil, errf(400, "InvalidParameterValue", "the subnets are not in the group's VPC %s", g.VpcID)
	}
	for _, n := range s.st.ENIs {
		if n.Linger == 0 && s.st.DBs[n.Owner] != nil && s.st.DBs[n.Owner].SubnetGroup == name && !anyIn(subnets, []string{n.SubnetID}) {
			return nil, errf(400, "InvalidSubnet", "Some of the subnets to be deleted are currently in use: %s", n.SubnetID)
		}
	}
	g.Subnets = subnets
	return []node{s.subnetGroupNode(g)}, nil
}

func (s *Server) describeDBSubnetGroups(f form) ([]node, *apiError) {
	names := sortedKeys(s.st.DBSubnetGroups)
	if n := strings.ToLower(f.get("DBSubnetGroupName")); n != "" {
		if s.st.DBSubnetGroups[n] == nil {
			return nil, errf(404, "DBSubnetGroupNotFoundFault", "DB subnet group %s not found", n)
		}
		names = []string{n}
	}
	names, tail, e := s.markerPage(f, "MaxRecords", "Marker", names)
	if e != nil {
		return nil, e
	}
	var items []node
	for _, n := range names {
		items = append(items, s.subnetGroupNode(s.st.DBSubnetGroups[n]))
	}
	return append([]node{list("DBSubnetGroups", "DBSubnetGroup", items)}, tail...), nil
}

func (s *Server) deleteDBSubnetGroup(f form) ([]node, *apiError) {
	name := strings.ToLower(f.get("DBSubnetGroupName"))
	if s.st.DBSubnetGroups[name] == nil {
		return nil, errf(404, "DBSubnetGroupNotFoundFault", "DB subnet group %s not found", name)
	}
	for _, db := range s.st.DBs {
		if db.SubnetGroup == name {
			return nil, errf(400, "InvalidDBSubnetGroupStateFault", "Cannot delete the subnet group '%s' because at least one database instance: %s is still using it.", name, db.ID)
		}
	}
	delete(s.st.DBSubnetGroups, name)
	return nil, nil
}

// visible is the status a Describe would show now.
func (db *DB) visible() string {
	if len(db.Script) > 0 {
		return db.Script[0].Status
	}
	return db.Status
}

func (s *Server) dbNode(db *DB, status string) node {
	g := s.st.DBSubnetGroups[db.SubnetGroup]
	if g == nil {
		g = &DBSubnetGroup{Name: db.SubnetGroup}
	}
	var groups []node
	for _, id := range db.Groups {
		groups = append(groups, el("", tx("VpcSecurityGroupId", id), tx("Status", "active")))
	}
	kids := []node{tx("DBInstanceIdentifier", db.ID), tx("DBInstanceArn", dbArn(db.ID)),
		tx("DBInstanceClass", db.Class), tx("Engine", db.Engine), tx("DBInstanceStatus", status),
		txi("AllocatedStorage", db.Storage), tx("MasterUsername", "kyku"), txb("PubliclyAccessible", db.Public),
		s.subnetGroupNode(g), list("VpcSecurityGroups", "VpcSecurityGroupMembership", groups),
		list("TagList", "Tag", tagNodes(db.Tags, "Key", "Value"))}
	if db.Version != "" {
		kids = append(kids, tx("EngineVersion", db.Version))
	}
	if p := db.Pending; p != nil {
		var pk []node
		if p.Class != "" {
			pk = append(pk, tx("DBInstanceClass", p.Class))
		}
		if p.Storage != 0 {
			pk = append(pk, txi("AllocatedStorage", p.Storage))
		}
		if p.Version != "" {
			pk = append(pk, tx("EngineVersion", p.Version))
		}
		kids = append(kids, el("PendingModifiedValues", pk...))
	}
	if db.ManagedPassword {
		kids = append(kids, el("MasterUserSecret", tx("SecretArn", "arn:aws:secretsmanager:eu-west-1:123456789012:secret:rds!"+db.ID), tx("SecretStatus", "active")))
	}
	if status != "creating" {
		port := 5432
		if db.Engine != "postgres" {
			port = 3306
		}
		kids = append(kids, el("Endpoint", tx("Address", db.ID+".abc.eu-west-1.rds.amazonaws.com"), txi("Port", port)))
	}
	return el("DBInstance", kids...)
}

func dbArn(id string) string { return "arn:aws:rds:eu-west-1:123456789012:db:" + id }

// dbGroups checks the VPC security groups of a request.
func (s *Server) dbGroups(f form, vpc string) ([]string, *apiError) {
	ids := f.list("VpcSecurityGroupIds.VpcSecurityGroupId")
	for _, id := range ids {
		g, e := s.group(id)
		if e != nil {
			return nil, errf(400, "InvalidParameterValue", "%s", e.msg)
		}
		if g.VpcID != vpc {
			return nil, errf(400, "InvalidParameterCombination", "The DB instance and EC2 security group %s are in different VPCs.", id)
		}
	}
	return sorted(ids), nil
}

func (s *Server) createDB(f form) ([]node, *apiError) {
	if e := checkDBIdent(f.get("DBInstanceIdentifier")); e != nil {
		return nil, e
	}
	id := strings.ToLower(f.get("DBInstanceIdentifier"))
	if s.st.DBs[id] != nil {
		return nil, errf(400, "DBInstanceAlreadyExists", "DB instance already exists")
	}
	if f.get("MasterUserPassword") != "" && f.get("ManageMasterUserPassword") == "true" {
		return nil, errf(400, "InvalidParameterCombination", "password and managed password both set")
	}
	gname := strings.ToLower(f.get("DBSubnetGroupName"))
	g := s.st.DBSubnetGroups[gname]
	if g == nil {
		return nil, errf(404, "DBSubnetGroupNotFoundFault", "DB subnet group %s not found", gname)
	}
	groups, e := s.dbGroups(f, g.VpcID)
	if e != nil {
		return nil, e
	}
	if len(groups) == 0 {
		groups = []string{s.defaultGroup(g.VpcID)}
	}
	// As RDS: without PubliclyAccessible, an instance in a VPC with an
	// internet gateway is public.
	public := f.get("PubliclyAccessible") == "true"
	if f.get("PubliclyAccessible") == "" {
		for _, gw := range s.st.IGWs {
			public = public || gw.VpcID == g.VpcID
		}
	}
	storage, _ := strconv.Atoi(f.get("AllocatedStorage"))
	version := f.get("EngineVersion")
	if version != "" && !strings.Contains(version, ".") {
		version += ".4" // like RDS: a major version gets its latest minor
	}
	db := &DB{ID: id, Class: f.get("DBInstanceClass"), Engine: f.get("Engine"), Version: version,
		Status: "available", Script: []Step{{Status: "creating"}, {Status: "creating"}, {Status: "backing-up"}},
		SubnetGroup: gname, Storage: storage, ManagedPassword: f.get("ManageMasterUserPassword") == "true",
		Public: public, Groups: groups, Tags: f.queryTags("Tags.Tag")}
	s.st.DBs[id] = db
	s.born(id)
	s.addENIs(id, "RDSNetworkInterface", g.Subnets[:1], groups)
	return []node{s.dbNode(db, db.visible())}, nil
}

func (s *Server) db(id string) (*DB, *apiError) {
	db := s.st.DBs[strings.ToLower(strings.TrimPrefix(id, dbArn("")))]
	if db == nil || s.lagging(db.ID) {
		return nil, errf(404, "DBInstanceNotFound", "DBInstance %s not found.", id)
	}
	return db, nil
}

// describeDBs answers by identifier (an error when there is none) or by
// the db-instance-id filter (identifiers or ARNs; missing ones are simply
// not listed), paginated.
func (s *Server) describeDBs(f form) ([]node, *apiError) {
	ids := sortedKeys(s.st.DBs)
	if id := f.get("DBInstanceIdentifier"); id != "" {
		db, e := s.db(id)
		if e != nil {
			return nil, e
		}
		ids = []string{db.ID}
	}
	var only map[string]bool
	for _, p := range f.structs("Filters.Filter") {
		if f.get(p+".Name") != "db-instance-id" {
			return nil, errf(400, "InvalidParameterValue", "Unrecognized filter name: %s", f.get(p+".Name"))
		}
		only = map[string]bool{}
		for _, v := range f.list(p + ".Values.Value") {
			only[strings.ToLower(strings.TrimPrefix(v, dbArn("")))] = true
		}
	}
	ids, tail, e := s.markerPage(f, "MaxRecords", "Marker", ids)
	if e != nil {
		return nil, e
	}
	var items []node
	for _, id := range ids {
		db := s.st.DBs[id]
		if (only != nil && !only[id]) || s.lagging(id) {
			continue
		}
		status := db.Status
		if len(db.Script) > 0 {
			step := db.Script[0]
			db.Script = db.Script[1:]
			if step.Apply {
				s.applyPending(db)
			}
			status = step.Status
		}
		items = append(items, s.dbNode(db, status))
		if status == "deleting" {
			delete(s.st.DBs, id)
			s.releaseENIs(id)
		}
	}
	return append([]node{list("DBInstances", "DBInstance", items)}, tail...), nil
}

func (s *Server) applyPending(db *DB) {
	p := db.Pending
	if p == nil {
		return
	}
	if p.Class != "" {
		db.Class = p.Class
	}
	if p.Storage != 0 {
		db.Storage = p.Storage
		s.dbEvent(db.ID, "Finished applying modification to allocated storage")
	}
	if p.Version != "" {
		db.Version = p.Version
	}
	if p.Groups != nil {
		db.Groups = p.Groups
		s.setENIGroups(db.ID, p.Groups)
	}
	db.Pending = nil
}

func (s *Server) modifyDB(f form) ([]node, *apiError) {
	db, e := s.db(f.get("DBInstanceIdentifier"))
	if e != nil {
		return nil, e
	}
	// Other modifications are made during storage-optimization too
	// (Amazon RDS User Guide, Increasing DB instance storage capacity:
	// "You can perform any other instance modifications").
	st := db.visible()
	if st != "available" && st != "storage-optimization" {
		return nil, errf(400, "InvalidDBInstanceState", "Database instance is not in available state (it is %s).", st)
	}
	p := &Pending{}
	if c := f.get("DBInstanceClass"); c != "" && c != db.Class {
		p.Class = c
	}
	if n, err := strconv.Atoi(f.get("AllocatedStorage")); err == nil && n != db.Storage {
		// No storage change while the last one is optimized, nor within
		// six hours of it (Amazon RDS User Guide, Increasing DB instance
		// storage capacity; StorageCooldown).
		switch left := db.StorageChanged.Add(StorageCooldown).Sub(s.now); {
		case st == "storage-optimization":
			return nil, errf(400, "InvalidParameterCombination", "You can't currently modify the storage of this DB instance because the previous storage change is being optimized.")
		case !db.StorageChanged.IsZero() && left > 0:
			return nil, errf(400, "InvalidParameterCombination", "You can't currently modify the storage of this DB instance. Try again after approximately %d hours.", int(left.Hours()+0.999))
		}
		switch {
		case n < db.Storage:
			return nil, errf(400, "InvalidParameterCombination", "Invalid storage size for engine name %s: it cannot be reduced from %d to %d", db.Engine, db.Storage, n)
		case n*10 < db.Storage*11:
			// As the API reference says: less than 10% more is rounded up
			// to 10% more.
			n = (db.Storage*11 + 9) / 10
		}
		p.Storage = n
	}
	if v := f.get("EngineVersion"); v != "" && v != db.Version {
		// Amazon RDS API Reference, ModifyDBInstance: EngineVersion is a
		// version to upgrade to; RDS never downgrades.
		if older(v, db.Version) {
			return nil, errf(400, "InvalidParameterCombination", "Cannot upgrade %s from %s to %s", db.Engine, db.Version, v)
		}
		if dbMajor(db.Engine, v) != dbMajor(db.Engine, db.Version) && f.get("AllowMajorVersionUpgrade") != "true" {
			return nil, errf(400, "InvalidParameterCombination", "The AllowMajorVersionUpgrade flag must be present when upgrading to a new major version.")
		}
		p.Version = v
		if !strings.Contains(v, ".") {
			p.Version = v + ".4" // a major version gets its latest minor
		}
	}
	if _, set := f.Values["VpcSecurityGroupIds.VpcSecurityGroupId.1"]; set {
		g := s.st.DBSubnetGroups[db.SubnetGroup]
		groups, e := s.dbGroups(f, g.VpcID)
		if e != nil {
			return nil, e
		}
		p.Groups = groups
	}
	if f.get("PubliclyAccessible") != "" {
		db.Public = f.get("PubliclyAccessible") == "true"
	}
	db.Pending = p
	if p.Storage != 0 && f.get("ApplyImmediately") == "true" {
		db.StorageChanged = s.now
		s.dbEvent(db.ID, "Applying modification to allocated storage")
	}
	if f.get("ApplyImmediately") != "true" {
		return []node{s.dbNode(db, db.visible())}, nil // applied in the next maintenance window
	}
	db.Script = []Step{{Status: "available"}, {Status: "modifying", Apply: true}, {Status: "modifying"}, {Status: "available"}, {Status: "modifying"}}
	if p.Storage != 0 {
		for range StorageOptimizing {
			db.Script = append(db.Script, Step{Status: "storage-optimization"})
		}
	}
	return []node{s.dbNode(db, db.visible())}, nil
}

// older reports whether version a is older than b, number by number
// ("15.4" < "16.4"; "16" is not older than "16.4").
func older(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, err1 := strconv.Atoi(as[i])
		y, err2 := strconv.Atoi(bs[i])
		if err1 != nil || err2 != nil || x == y {
			continue
		}
		return x < y
	}
	return false
}

func (s *Server) deleteDB(f form) ([]node, *apiError) {
	db, e := s.db(f.get("DBInstanceIdentifier"))
	if e != nil {
		return nil, e
	}
	if db.visible() == "deleting" {
		return nil, errf(400, "InvalidDBInstanceState", "Instance %s is already being deleted.", db.ID)
	}
	if f.get("SkipFinalSnapshot") != "true" && f.get("FinalDBSnapshotIdentifier") == "" {
		return nil, errf(400, "InvalidParameterCombination", "FinalDBSnapshotIdentifier is required unless SkipFinalSnapshot is set")
	}
	db.Status, db.Script = "deleting", nil
	return []node{s.dbNode(db, db.Status)}, nil
}

func (s *Server) dbByArn(arn string) (*DB, *apiError) {
	for _, db := range s.st.DBs {
		if dbArn(db.ID) == arn && !s.lagging(db.ID) {
			return db, nil
		}
	}
	return nil, errf(404, "DBInstanceNotFound", "DBInstance %s not found.", arn)
}

func (s *Server) addDBTags(f form) ([]node, *apiError) {
	db, e := s.dbByArn(f.get("ResourceName"))
	if e != nil {
		return nil, e
	}
	for k, v := range f.queryTags("Tags.Tag") {
		db.Tags[k] = v
	}
	return nil, nil
}

func (s *Server) removeDBTags(f form) ([]node, *apiError) {
	db, e := s.dbByArn(f.get("ResourceName"))
	if e != nil {
		return nil, e
	}
	for _, k := range f.list("TagKeys.member") {
		delete(db.Tags, k)
	}
	return nil, nil
}

// dbEvent records an RDS event about instance id now.
func (s *Server) dbEvent(id, message string) {
	s.st.DBEvents = append(s.st.DBEvents, DBEvent{Time: s.now, Source: id, Message: message, Categories: []string{"configuration change"}})
}

// describeEvents answers DescribeEvents (Amazon RDS API Reference): the
// events of SourceIdentifier (with SourceType db-instance) between
// StartTime and EndTime, or of the last Duration minutes — by default
// the past hour ("By default, RDS returns events that were generated in
// the past hour"), 14 days at most.
func (s *Server) describeEvents(f form) ([]node, *apiError) {
	if t := f.get("SourceType"); t != "" && t != "db-instance" {
		return nil, errf(400, "InvalidParameterValue", "the fake keeps events of db-instance sources only, not %s", t)
	}
	if f.get("SourceIdentifier") != "" && f.get("SourceType") == "" {
		return nil, errf(400, "InvalidParameterCombination", "SourceType is required with SourceIdentifier")
	}
	end := s.now
	if v := f.get("EndTime"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return nil, errf(400, "InvalidParameterValue", "EndTime %q is not an ISO 8601 time", v)
		}
		end = t
	}
	start := end.Add(-time.Hour)
	if v := f.get("Duration"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, errf(400, "InvalidParameterValue", "Duration %q is not a number of minutes", v)
		}
		start = end.Add(-time.Duration(n) * time.Minute)
	}
	if v := f.get("StartTime"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return nil, errf(400, "InvalidParameterValue", "StartTime %q is not an ISO 8601 time", v)
		}
		start = t
	}
	if oldest := s.now.Add(-14 * 24 * time.Hour); start.Before(oldest) {
		start = oldest
	}
	source := strings.ToLower(f.get("SourceIdentifier"))
	cats := f.list("EventCategories.EventCategory")
	var keys []string
	for i, e := range s.st.DBEvents {
		if (source == "" || e.Source == source) && !e.Time.Before(start) && !e.Time.After(end) && (len(cats) == 0 || anyIn(e.Categories, cats)) {
			keys = append(keys, fmt.Sprintf("%08d", i))
		}
	}
	keys, tail, e := s.markerPage(f, "MaxRecords", "Marker", keys)
	if e != nil {
		return nil, e
	}
	var items []node
	for _, k := range keys {
		i, _ := strconv.Atoi(k)
		ev := s.st.DBEvents[i]
		var cs []node
		for _, c := range ev.Categories {
			cs = append(cs, tx("", c))
		}
		items = append(items, el("", tx("SourceIdentifier", ev.Source), tx("SourceType", "db-instance"), tx("Message", ev.Message),
			list("EventCategories", "EventCategory", cs), tx("Date", ev.Time.UTC().Format(time.RFC3339)), tx("SourceArn", dbArn(ev.Source))))
	}
	return append([]node{list("Events", "Event", items)}, tail...), nil
}
