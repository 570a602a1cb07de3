package aws

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/kyku/action/internal/provider"
	rds "github.com/kyku/action/internal/provider/aws/rdsapi"

	"github.com/kyku/action/internal/provider/aws/ec2api"
	"github.com/kyku/action/internal/provider/property"
	"github.com/kyku/action/internal/value"
)

// dbKind maps Database to an RDS instance whose identifier is derived from
// the cloud name (dbIdentifier), in a DB subnet group of the same name made
// of the network's private Kyku subnets, never publicly accessible, in the
// securityGroups asked for, with an AWS-managed master password kept in
// Secrets Manager (ManageMasterUserPassword): no password ever reaches
// Kyku's state. The cloud name is kept in the Name tag.
type dbKind struct{ p *Provider }

const (
	tagVersion = "kyku:version"
	// tagGroups marks a database or load balancer whose securityGroups
	// Kyku manages; without it the VPC's default group is AWS's choice
	// and not reported.
	tagGroups = "kyku:securityGroups"
	// settledReads is how many reads in a row must find a database
	// settled before a create or an update returns: RDS passes through
	// "available" between the steps of a modification.
	settledReads = 3
)

var dbSizes = sync.OnceValue(func() map[string]string {
	return map[string]string{"small": "db.t3.small", "medium": "db.t3.medium", "large": "db.t3.large"}
})

func dbClass(size string) (string, error) {
	if c, ok := dbSizes()[size]; ok {
		return c, nil
	}
	if strings.HasPrefix(size, "db.") {
		return size, nil
	}
	return "", fmt.Errorf("unknown database size %q (use small, medium, large or a class such as db.t3.micro)", size)
}

func dbTags(r provider.Resource, size string) map[string]string {
	extra := map[string]string{tagSize: size}
	if v := property.String(r.Properties, "version"); v != "" {
		extra[tagVersion] = v
	}
	if _, ok := r.Properties["securityGroups"]; ok {
		extra[tagGroups] = "managed"
	}
	return wantTags(r, extra)
}

// rdsTags is t as RDS tags, sorted by key.
func rdsTags(t map[string]string) []rds.Tag {
	var out []rds.Tag
	for _, k := range slices.Sorted(maps.Keys(t)) {
		out = append(out, rds.Tag{Key: aws.String(k), Value: aws.String(t[k])})
	}
	return out
}

// dbIdent turns a provider ID (the DB ARN) into the DB identifier the
// RDS write calls want; an identifier passes through.
func dbIdent(id string) string {
	if strings.HasPrefix(id, "arn:") {
		return id[strings.LastIndex(id, ":")+1:]
	}
	return id
}

// dbMajor is the major version of an engine version: "16" of "16.4", but
// "9.6" of "9.6.24" (PostgreSQL before 10), "8.0" of "8.0.35" (MySQL,
// MariaDB).
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

// describe accepts the identifier or the ARN, as DescribeDBInstances does.
func (k dbKind) describe(ctx context.Context, id string) (rds.DBInstance, error) {
	return k.describeAs(ctx, plain, id)
}

// describeAs reads with mode m: settling right after a create, when
// DBInstanceNotFound means not visible yet.
func (k dbKind) describeAs(ctx context.Context, m mode, id string) (rds.DBInstance, error) {
	dbs, err := k.p.dbInstances(ctx, m, rds.DescribeDBInstancesInput{DBInstanceIdentifier: aws.String(id)})
	if err != nil {
		return rds.DBInstance{}, err
	}
	if len(dbs) == 0 {
		return rds.DBInstance{}, provider.NotFound("db instance " + id)
	}
	return dbs[0], nil
}

func dbObject(db rds.DBInstance) provider.Object {
	tags := map[string]string{}
	for _, t := range db.TagList {
		tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	class := aws.ToString(db.DBInstanceClass)
	props := map[string]any{"engine": aws.ToString(db.Engine), "size": class, "storageGb": float64(aws.ToInt32(db.AllocatedStorage))}
	if c, err := dbClass(tags[tagSize]); err == nil && c == class {
		props["size"] = tags[tagSize]
	}
	if v := aws.ToString(db.EngineVersion); v != "" {
		props["version"] = v
		// "16" asks RDS for the latest 16.x: report it as written while
		// the running version is in that line.
		if want := tags[tagVersion]; want != "" && (v == want || strings.HasPrefix(v, want+".")) {
			props["version"] = want
		}
	}
	if db.DBSubnetGroup != nil {
		props["network"] = aws.ToString(db.DBSubnetGroup.VpcId)
	}
	if tags[tagGroups] == "managed" {
		props["securityGroups"] = property.List(dbGroupIDs(db))
	}
	outputs := map[string]any{}
	if e := db.Endpoint; e != nil {
		outputs["endpoint"] = fmt.Sprintf("%s:%d", aws.ToString(e.Address), aws.ToInt32(e.Port))
	}
	if s := db.MasterUserSecret; s != nil {
		outputs["passwordSecretArn"] = aws.ToString(s.SecretArn)
	}
	name := tags[tagNameAWS]
	if name == "" {
		name = aws.ToString(db.DBInstanceIdentifier)
	}
	return provider.NewObject(aws.ToString(db.DBInstanceArn), name, property.SetTags(props, tags, systemTag), outputs)
}

func dbGroupIDs(db rds.DBInstance) []string {
	var ids []string
	for _, g := range db.VpcSecurityGroups {
		ids = append(ids, aws.ToString(g.VpcSecurityGroupId))
	}
	return sortedStrs(ids)
}

func (k dbKind) Lookup(ctx context.Context, name string) (provider.Object, error) {
	return k.Read(ctx, dbIdentifier(name))
}

// read reports an instance being deleted as there (it is, and so is its
// subnet group): a delete interrupted while RDS deletes is planned again,
// and the next Delete finishes it, subnet group included.
func (k dbKind) Read(ctx context.Context, id string) (provider.Object, error) {
	db, err := k.describe(ctx, id)
	if err != nil {
		return provider.Object{}, err
	}
	return dbObject(db), nil
}

// settled reports whether an instance is done changing: available, or
// optimizing storage after growing it (which takes hours and takes
// requests), with nothing pending.
func settled(db rds.DBInstance) bool {
	st := aws.ToString(db.DBInstanceStatus)
	return (st == "available" || st == "storage-optimization") && pendingEmpty(db.PendingModifiedValues)
}

func pendingEmpty(p *rds.PendingModifiedValues) bool {
	return p == nil || (p.DBInstanceClass == nil && p.AllocatedStorage == nil && p.EngineVersion == nil &&
		p.StorageType == nil && p.Iops == nil && p.MultiAZ == nil)
}

// waitSettled polls until applied says the change shows and the instance
// has read as settled settledReads times in a row. RDS keeps saying
// "available", the change pending, for a while after a ModifyDBInstance,
// and passes through "available" between its steps. m is settling right
// after a create.
func (k dbKind) waitSettled(ctx context.Context, m mode, id string, applied func(rds.DBInstance) bool) (provider.Object, error) {
	var db rds.DBInstance
	started, inARow := applied == nil, 0
	err := k.p.poll(ctx, "db instance "+id+" to settle", func(ctx context.Context) (bool, error) {
		var err error
		if db, err = k.describeAs(ctx, m, id); err != nil {
			return false, err
		}
		switch st := aws.ToString(db.DBInstanceStatus); st {
		case "deleting", "failed", "incompatible-parameters", "incompatible-network", "storage-full", "inaccessible-encryption-credentials":
			return false, fmt.Errorf("db instance %s is %s", id, st)
		}
		started = started || aws.ToString(db.DBInstanceStatus) != "available" || (pendingEmpty(db.PendingModifiedValues) && applied(db))
		if !started || !settled(db) {
			inARow = 0
			return false, nil
		}
		inARow++
		return inARow >= settledReads, nil
	})
	if err != nil {
		return provider.Object{}, err
	}
	return dbObject(db), nil
}

// privateSubnets lists the network's Kyku subnets without public IPs, or
// all its Kyku subnets when none is private.
func (p *Provider) privateSubnets(ctx context.Context, vpc string) ([]string, error) {
	ss, err := p.subnets(ctx, settling, ec2api.DescribeSubnetsInput{Filters: []ec2api.Filter{
		filter("vpc-id", vpc), filter("tag:"+tagManaged, "true"),
	}})
	if err != nil {
		return nil, err
	}
	var private, all []string
	for _, s := range ss {
		all = append(all, aws.ToString(s.SubnetId))
		if !aws.ToBool(s.MapPublicIpOnLaunch) {
			private = append(private, aws.ToString(s.SubnetId))
		}
	}
	if len(private) == 0 {
		private = all // still not publicly accessible: PubliclyAccessible stays false
	}
	sort.Strings(private)
	return private, nil
}

// subnetGroup makes the DB subnet group named name hold subnets: created,
// or — left by an earlier run — brought to the current subnets.
func (k dbKind) subnetGroup(ctx context.Context, name, description string, subnets []string, tags map[string]string) error {
	p := k.p
	err := p.call(ctx, "create db subnet group", plain, func(ctx context.Context) error {
		err := p.rds.CreateDBSubnetGroup(ctx, &rds.CreateDBSubnetGroupInput{
			DBSubnetGroupName: aws.String(name), DBSubnetGroupDescription: aws.String(description),
			SubnetIds: subnets, Tags: rdsTags(tags),
		})
		return err
	})
	if apiCode(err) != "DBSubnetGroupAlreadyExists" {
		return err
	}
	return k.setSubnets(ctx, name, subnets)
}

// setSubnets modifies the group when its subnets are not subnets.
func (k dbKind) setSubnets(ctx context.Context, name string, subnets []string) error {
	p := k.p
	var groups []rds.DBSubnetGroup
	err := p.pages(ctx, "describe db subnet groups", plain, func(ctx context.Context, token *string) (*string, error) {
		out, err := p.rds.DescribeDBSubnetGroups(ctx, &rds.DescribeDBSubnetGroupsInput{DBSubnetGroupName: aws.String(name), Marker: token})
		if err != nil {
			return nil, err
		}
		groups = append(groups, out.DBSubnetGroups...)
		return out.Marker, nil
	})
	if err != nil {
		return err
	}
	var have []string
	for _, g := range groups {
		for _, s := range g.Subnets {
			have = append(have, aws.ToString(s.SubnetIdentifier))
		}
	}
	if strings.Join(sortedStrs(have), ",") == strings.Join(sortedStrs(subnets), ",") {
		return nil
	}
	return p.call(ctx, "modify db subnet group", settling, func(ctx context.Context) error {
		err := p.rds.ModifyDBSubnetGroup(ctx, &rds.ModifyDBSubnetGroupInput{DBSubnetGroupName: aws.String(name), SubnetIds: subnets})
		return err
	})
}

// dropSubnetGroup deletes the DB subnet group by name, retrying while the
// instance leaving it still holds it; gone already is fine.
func (k dbKind) dropSubnetGroup(ctx context.Context, name string) error {
	err := k.p.whileInUse(ctx, "delete db subnet group", func(ctx context.Context) error {
		err := k.p.rds.DeleteDBSubnetGroup(ctx, &rds.DeleteDBSubnetGroupInput{DBSubnetGroupName: aws.String(name)})
		return err
	})
	if provider.IsNotFound(err) {
		return nil
	}
	return err
}

func (k dbKind) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	if err := required(r, "engine", "network"); err != nil {
		return provider.Object{}, err
	}
	p, id := k.p, dbIdentifier(r.CloudName)
	if db, err := k.describe(ctx, id); err == nil {
		if aws.ToString(db.DBInstanceStatus) != "deleting" {
			return k.waitSettled(ctx, plain, id, nil)
		}
		// A deletion is under way: let it finish, then create anew.
		if err := k.waitGone(ctx, id); err != nil {
			return provider.Object{}, err
		}
	} else if !provider.IsNotFound(err) {
		return provider.Object{}, err
	}
	size := property.StringOr(r.Properties, "size", "small")
	class, err := dbClass(size)
	if err != nil {
		return provider.Object{}, err
	}
	tags := dbTags(r, size)
	subnets, err := p.privateSubnets(ctx, property.String(r.Properties, "network"))
	if err != nil {
		return provider.Object{}, err
	}
	if len(subnets) == 0 {
		return provider.Object{}, fmt.Errorf("network %s has no Kyku subnets for the database", property.String(r.Properties, "network"))
	}
	if err := k.subnetGroup(ctx, id, "Kyku "+r.Prefix+"/"+value.SafeName(r.Name), subnets, tags); err != nil {
		return provider.Object{}, err
	}
	in := &rds.CreateDBInstanceInput{
		DBInstanceIdentifier: aws.String(id), DBInstanceClass: aws.String(class),
		Engine: aws.String(property.String(r.Properties, "engine")), AllocatedStorage: aws.Int32(int32(property.Int(r.Properties, "storageGb", 20))),
		DBSubnetGroupName: aws.String(id), MasterUsername: aws.String("kyku"), ManageMasterUserPassword: aws.Bool(true),
		PubliclyAccessible: aws.Bool(false), VpcSecurityGroupIds: property.Strings(r.Properties, "securityGroups"),
		Tags: rdsTags(tags),
	}
	if v := property.String(r.Properties, "version"); v != "" {
		in.EngineVersion = aws.String(v)
	}
	err = p.call(ctx, "create db instance", settling, func(ctx context.Context) error {
		err := p.rds.CreateDBInstance(ctx, in)
		if apiCode(err) == "DBInstanceAlreadyExists" {
			return nil // a resent request that had landed
		}
		return err
	})
	if err != nil && !provider.IsTransient(err) {
		// Nothing uses the subnet group made for it: do not leave it.
		if _, derr := k.describe(ctx, id); provider.IsNotFound(derr) {
			if cerr := k.dropSubnetGroup(ctx, id); cerr != nil {
				return provider.Object{}, fmt.Errorf("%w (and removing its subnet group %s failed: %v)", err, id, cerr)
			}
		}
		return provider.Object{}, err
	}
	if err != nil {
		return provider.Object{}, err
	}
	return k.waitSettled(ctx, settling, id, nil)
}
