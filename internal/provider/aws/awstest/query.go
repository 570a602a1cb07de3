package awstest

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// DBSubnetGroup is a fake RDS DB subnet group.
type DBSubnetGroup struct {
	Name, VpcID string
	Subnets     []string
	Tags        map[string]string
}

// DB is a fake RDS instance; Status moves creating→available and
// modifying→available on the next Describe, deleting→gone.
type DB struct {
	ID, Class, Engine, Version, Status, SubnetGroup string
	Storage                                         int
	ManagedPassword                                 bool
	Tags                                            map[string]string
}

// TG is a fake ELBv2 target group.
type TG struct {
	Arn, Name, Protocol, VpcID string
	Port                       int
	Targets                    []string
	Tags                       map[string]string
}

// LB is a fake ELBv2 load balancer.
type LB struct {
	Arn, Name, Type, VpcID, DNS string
	Subnets                     []string
	Tags                        map[string]string
}

// Listener is a fake ELBv2 listener forwarding to one target group.
type Listener struct {
	Arn, LB, Protocol, TG string
	Port                  int
}

type queryHandler func(s *Server, f form) ([]node, *apiError)

var rdsActions = map[string]queryHandler{
	"CreateDBSubnetGroup":    (*Server).createDBSubnetGroup,
	"DeleteDBSubnetGroup":    (*Server).deleteDBSubnetGroup,
	"CreateDBInstance":       (*Server).createDB,
	"DescribeDBInstances":    (*Server).describeDBs,
	"ModifyDBInstance":       (*Server).modifyDB,
	"DeleteDBInstance":       (*Server).deleteDB,
	"AddTagsToResource":      (*Server).addDBTags,
	"RemoveTagsFromResource": (*Server).removeDBTags,
}

func (f form) queryTags(prefix string) map[string]string {
	tags := map[string]string{}
	for _, p := range f.structs(prefix) {
		tags[f.get(p+".Key")] = f.get(p + ".Value")
	}
	return tags
}

func (s *Server) createDBSubnetGroup(f form) ([]node, *apiError) {
	name := f.get("DBSubnetGroupName")
	if s.st.DBSubnetGroups[name] != nil {
		return nil, errf(400, "DBSubnetGroupAlreadyExists", "DB subnet group %s already exists", name)
	}
	g := &DBSubnetGroup{Name: name, Tags: f.queryTags("Tags.Tag")}
	for _, id := range f.list("SubnetIds.SubnetIdentifier") {
		sn, e := s.subnet(id)
		if e != nil {
			return nil, errf(400, "InvalidSubnet", "%s", e.msg)
		}
		g.VpcID = sn.VpcID
		g.Subnets = append(g.Subnets, id)
	}
	s.st.DBSubnetGroups[name] = g
	return []node{el("DBSubnetGroup", tx("DBSubnetGroupName", name), tx("VpcId", g.VpcID))}, nil
}

func (s *Server) deleteDBSubnetGroup(f form) ([]node, *apiError) {
	name := f.get("DBSubnetGroupName")
	if s.st.DBSubnetGroups[name] == nil {
		return nil, errf(404, "DBSubnetGroupNotFoundFault", "DB subnet group %s not found", name)
	}
	for _, db := range s.st.DBs {
		if db.SubnetGroup == name {
			return nil, errf(400, "InvalidDBSubnetGroupStateFault", "DB subnet group %s is in use", name)
		}
	}
	delete(s.st.DBSubnetGroups, name)
	return nil, nil
}

func (s *Server) dbNode(db *DB) node {
	g := s.st.DBSubnetGroups[db.SubnetGroup]
	vpc := ""
	if g != nil {
		vpc = g.VpcID
	}
	kids := []node{tx("DBInstanceIdentifier", db.ID), tx("DBInstanceArn", "arn:aws:rds:eu-west-1:123456789012:db:"+db.ID),
		tx("DBInstanceClass", db.Class), tx("Engine", db.Engine), tx("DBInstanceStatus", db.Status),
		txi("AllocatedStorage", db.Storage), tx("MasterUsername", "kyku"),
		el("DBSubnetGroup", tx("DBSubnetGroupName", db.SubnetGroup), tx("VpcId", vpc)),
		list("TagList", "Tag", tagNodes(db.Tags, "Key", "Value"))}
	if db.Version != "" {
		kids = append(kids, tx("EngineVersion", db.Version))
	}
	if db.ManagedPassword {
		kids = append(kids, el("MasterUserSecret", tx("SecretArn", "arn:aws:secretsmanager:eu-west-1:123456789012:secret:rds!"+db.ID), tx("SecretStatus", "active")))
	}
	if db.Status != "creating" {
		port := 5432
		if db.Engine != "postgres" {
			port = 3306
		}
		kids = append(kids, el("Endpoint", tx("Address", db.ID+".abc.eu-west-1.rds.amazonaws.com"), txi("Port", port)))
	}
	return el("DBInstance", kids...)
}

func (s *Server) createDB(f form) ([]node, *apiError) {
	id := f.get("DBInstanceIdentifier")
	if s.st.DBs[id] != nil {
		return nil, errf(400, "DBInstanceAlreadyExists", "DB instance already exists")
	}
	if f.get("MasterUserPassword") != "" && f.get("ManageMasterUserPassword") == "true" {
		return nil, errf(400, "InvalidParameterCombination", "password and managed password both set")
	}
	g := f.get("DBSubnetGroupName")
	if s.st.DBSubnetGroups[g] == nil {
		return nil, errf(404, "DBSubnetGroupNotFoundFault", "DB subnet group %s not found", g)
	}
	storage, _ := strconv.Atoi(f.get("AllocatedStorage"))
	version := f.get("EngineVersion")
	if version != "" && !strings.Contains(version, ".") {
		version += ".4" // like RDS: a major version gets its latest minor
	}
	db := &DB{ID: id, Class: f.get("DBInstanceClass"), Engine: f.get("Engine"), Version: version,
		Status: "creating", SubnetGroup: g, Storage: storage, ManagedPassword: f.get("ManageMasterUserPassword") == "true",
		Tags: f.queryTags("Tags.Tag")}
	s.st.DBs[id] = db
	return []node{s.dbNode(db)}, nil
}

func (s *Server) db(id string) (*DB, *apiError) {
	db := s.st.DBs[strings.TrimPrefix(id, "arn:aws:rds:eu-west-1:123456789012:db:")]
	if db == nil {
		return nil, errf(404, "DBInstanceNotFound", "DBInstance %s not found.", id)
	}
	return db, nil
}

func (s *Server) describeDBs(f form) ([]node, *apiError) {
	ids := sortedKeys(s.st.DBs)
	if id := f.get("DBInstanceIdentifier"); id != "" {
		db, e := s.db(id)
		if e != nil {
			return nil, e
		}
		ids = []string{db.ID}
	}
	var items []node
	for _, id := range ids {
		db := s.st.DBs[id]
		items = append(items, s.dbNode(db))
		switch db.Status {
		case "creating", "modifying":
			db.Status = "available"
		case "deleting":
			delete(s.st.DBs, id)
		}
	}
	return []node{list("DBInstances", "DBInstance", items)}, nil
}

func (s *Server) modifyDB(f form) ([]node, *apiError) {
	db, e := s.db(f.get("DBInstanceIdentifier"))
	if e != nil {
		return nil, e
	}
	if c := f.get("DBInstanceClass"); c != "" {
		db.Class = c
	}
	if n, err := strconv.Atoi(f.get("AllocatedStorage")); err == nil {
		if n < db.Storage {
			return nil, errf(400, "InvalidParameterCombination", "cannot shrink storage")
		}
		db.Storage = n
	}
	if v := f.get("EngineVersion"); v != "" {
		db.Version = v
	}
	db.Status = "modifying"
	return []node{s.dbNode(db)}, nil
}

func (s *Server) deleteDB(f form) ([]node, *apiError) {
	db, e := s.db(f.get("DBInstanceIdentifier"))
	if e != nil {
		return nil, e
	}
	if f.get("SkipFinalSnapshot") != "true" && f.get("FinalDBSnapshotIdentifier") == "" {
		return nil, errf(400, "InvalidParameterCombination", "FinalDBSnapshotIdentifier is required unless SkipFinalSnapshot is set")
	}
	db.Status = "deleting"
	return []node{s.dbNode(db)}, nil
}

func (s *Server) dbByArn(arn string) (*DB, *apiError) {
	for _, db := range s.st.DBs {
		if "arn:aws:rds:eu-west-1:123456789012:db:"+db.ID == arn {
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

func (s *Server) arn(kind, name string) string {
	s.seq++
	return fmt.Sprintf("arn:aws:elasticloadbalancing:eu-west-1:123456789012:%s/%s/%016x", kind, name, s.seq)
}

func sorted(xs []string) []string {
	out := append([]string(nil), xs...)
	sort.Strings(out)
	return out
}
