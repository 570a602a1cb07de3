package aws

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/rds"
	rdstypes "github.com/aws/aws-sdk-go-v2/service/rds/types"

	"github.com/kyku/action/internal/provider"
)

// dbKind maps Database to an RDS instance identified by the cloud name,
// in a DB subnet group (same name) made of the network's private Kyku
// subnets, with an AWS-managed master password kept in Secrets Manager
// (ManageMasterUserPassword): no password ever reaches Kyku's state.
type dbKind struct{ p *Provider }

const tagVersion = "kyku:version"

var dbSizes = map[string]string{"small": "db.t3.small", "medium": "db.t3.medium", "large": "db.t3.large"}

func dbClass(size string) (string, error) {
	if c, ok := dbSizes[size]; ok {
		return c, nil
	}
	if strings.HasPrefix(size, "db.") {
		return size, nil
	}
	return "", fmt.Errorf("unknown database size %q (use small, medium, large or a class such as db.t3.micro)", size)
}

func dbTags(r provider.Resource, size string) map[string]string {
	extra := map[string]string{tagSize: size}
	if v := pstr(r.Properties, "version"); v != "" {
		extra[tagVersion] = v
	}
	return wantTags(r, extra)
}

func rdsTags(t map[string]string) []rdstypes.Tag {
	var out []rdstypes.Tag
	for _, tg := range ec2Tags(t) {
		out = append(out, rdstypes.Tag{Key: tg.Key, Value: tg.Value})
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

// describe accepts the identifier or the ARN, as DescribeDBInstances does.
func (k dbKind) describe(ctx context.Context, id string) (rdstypes.DBInstance, error) {
	var out *rds.DescribeDBInstancesOutput
	err := k.p.call(ctx, "describe db instances", plain, func(ctx context.Context) (err error) {
		out, err = k.p.rds.DescribeDBInstances(ctx, &rds.DescribeDBInstancesInput{DBInstanceIdentifier: aws.String(id)})
		return err
	})
	if err != nil {
		return rdstypes.DBInstance{}, err
	}
	if len(out.DBInstances) == 0 {
		return rdstypes.DBInstance{}, gone("db instance " + id)
	}
	return out.DBInstances[0], nil
}

func dbObject(db rdstypes.DBInstance) provider.Object {
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
	outputs := map[string]any{}
	if e := db.Endpoint; e != nil {
		outputs["endpoint"] = fmt.Sprintf("%s:%d", aws.ToString(e.Address), aws.ToInt32(e.Port))
	}
	if s := db.MasterUserSecret; s != nil {
		outputs["passwordSecretArn"] = aws.ToString(s.SecretArn)
	}
	return object(aws.ToString(db.DBInstanceArn), aws.ToString(db.DBInstanceIdentifier), setTags(props, tags), outputs)
}

func (k dbKind) lookup(ctx context.Context, name string) (provider.Object, error) {
	return k.read(ctx, name)
}

func (k dbKind) read(ctx context.Context, id string) (provider.Object, error) {
	db, err := k.describe(ctx, id)
	if err != nil {
		return provider.Object{}, err
	}
	if aws.ToString(db.DBInstanceStatus) == "deleting" {
		return provider.Object{}, gone("db instance " + id + " (deleting)")
	}
	return dbObject(db), nil
}

func (k dbKind) waitAvailable(ctx context.Context, id string) (provider.Object, error) {
	var db rdstypes.DBInstance
	err := k.p.poll(ctx, "db instance "+id+" available", func(ctx context.Context) (bool, error) {
		var err error
		db, err = k.describe(ctx, id)
		return err == nil && aws.ToString(db.DBInstanceStatus) == "available", err
	})
	if err != nil {
		return provider.Object{}, err
	}
	return dbObject(db), nil
}

// privateSubnets lists the network's Kyku subnets without public IPs, or
// all its Kyku subnets when none is private.
func (p *Provider) privateSubnets(ctx context.Context, vpc string) ([]string, error) {
	ss, err := subnetKind{p}.describe(ctx, settling, &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{
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

func (k dbKind) create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	if err := required(r, "engine", "network"); err != nil {
		return provider.Object{}, err
	}
	p, id := k.p, r.CloudName
	if _, err := k.describe(ctx, id); err == nil {
		return k.waitAvailable(ctx, id)
	} else if !isGone(err) {
		return provider.Object{}, err
	}
	size := pstr(r.Properties, "size")
	if size == "" {
		size = "small"
	}
	class, err := dbClass(size)
	if err != nil {
		return provider.Object{}, err
	}
	tags := dbTags(r, size)
	subnets, err := p.privateSubnets(ctx, pstr(r.Properties, "network"))
	if err != nil {
		return provider.Object{}, err
	}
	if len(subnets) == 0 {
		return provider.Object{}, fmt.Errorf("network %s has no Kyku subnets for the database", pstr(r.Properties, "network"))
	}
	err = p.call(ctx, "create db subnet group", plain, func(ctx context.Context) error {
		_, err := p.rds.CreateDBSubnetGroup(ctx, &rds.CreateDBSubnetGroupInput{
			DBSubnetGroupName: aws.String(id), DBSubnetGroupDescription: aws.String("Kyku " + r.Prefix + "/" + r.Name),
			SubnetIds: subnets, Tags: rdsTags(tags),
		})
		if apiCode(err) == "DBSubnetGroupAlreadyExists" {
			return nil // left by an interrupted create
		}
		return err
	})
	if err != nil {
		return provider.Object{}, err
	}
	in := &rds.CreateDBInstanceInput{
		DBInstanceIdentifier: aws.String(id), DBInstanceClass: aws.String(class),
		Engine: aws.String(pstr(r.Properties, "engine")), AllocatedStorage: aws.Int32(int32(pint(r.Properties, "storageGb", 20))),
		DBSubnetGroupName: aws.String(id), MasterUsername: aws.String("kyku"), ManageMasterUserPassword: aws.Bool(true),
		Tags: rdsTags(tags),
	}
	if v := pstr(r.Properties, "version"); v != "" {
		in.EngineVersion = aws.String(v)
	}
	err = p.call(ctx, "create db instance", plain, func(ctx context.Context) error {
		_, err := p.rds.CreateDBInstance(ctx, in)
		return err
	})
	if err != nil {
		return provider.Object{}, err
	}
	return k.waitAvailable(ctx, id)
}

func (k dbKind) update(ctx context.Context, id string, r provider.Resource, cur provider.Object) (provider.Object, error) {
	p := k.p
	db, err := k.describe(ctx, id)
	if err != nil {
		return provider.Object{}, err
	}
	size := pstr(r.Properties, "size")
	if size == "" {
		size = "small"
	}
	class, err := dbClass(size)
	if err != nil {
		return provider.Object{}, err
	}
	in := &rds.ModifyDBInstanceInput{DBInstanceIdentifier: db.DBInstanceIdentifier, ApplyImmediately: aws.Bool(true)}
	changed := false
	if class != aws.ToString(db.DBInstanceClass) {
		in.DBInstanceClass, changed = aws.String(class), true
	}
	if gb := int32(pint(r.Properties, "storageGb", 20)); gb != aws.ToInt32(db.AllocatedStorage) {
		in.AllocatedStorage, changed = aws.Int32(gb), true
	}
	if v := pstr(r.Properties, "version"); v != "" && v != aws.ToString(db.EngineVersion) && !strings.HasPrefix(aws.ToString(db.EngineVersion), v+".") {
		in.EngineVersion, changed = aws.String(v), true
	}
	if changed {
		err := p.call(ctx, "modify db instance", plain, func(ctx context.Context) error {
			_, err := p.rds.ModifyDBInstance(ctx, in)
			return err
		})
		if err != nil {
			return provider.Object{}, err
		}
	}
	have := map[string]string{}
	for _, t := range db.TagList {
		have[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	want := dbTags(r, size)
	want[tagNameAWS] = have[tagNameAWS]
	set, remove := tagDiff(have, want)
	arn := db.DBInstanceArn
	if len(set) > 0 {
		err := p.call(ctx, "tag db instance", plain, func(ctx context.Context) error {
			_, err := p.rds.AddTagsToResource(ctx, &rds.AddTagsToResourceInput{ResourceName: arn, Tags: rdsTags(set)})
			return err
		})
		if err != nil {
			return provider.Object{}, err
		}
	}
	if len(remove) > 0 {
		err := p.call(ctx, "untag db instance", plain, func(ctx context.Context) error {
			_, err := p.rds.RemoveTagsFromResource(ctx, &rds.RemoveTagsFromResourceInput{ResourceName: arn, TagKeys: remove})
			return err
		})
		if err != nil {
			return provider.Object{}, err
		}
	}
	return k.waitAvailable(ctx, id)
}

func (k dbKind) delete(ctx context.Context, id string) error {
	p := k.p
	db, err := k.describe(ctx, id)
	if err != nil {
		return err
	}
	if aws.ToString(db.DBInstanceStatus) != "deleting" {
		err = p.call(ctx, "delete db instance", plain, func(ctx context.Context) error {
			_, err := p.rds.DeleteDBInstance(ctx, &rds.DeleteDBInstanceInput{
				DBInstanceIdentifier: db.DBInstanceIdentifier, SkipFinalSnapshot: aws.Bool(true), DeleteAutomatedBackups: aws.Bool(true),
			})
			return err
		})
		if err != nil {
			return err
		}
	}
	err = p.poll(ctx, "db instance "+id+" deleted", func(ctx context.Context) (bool, error) {
		_, err := k.describe(ctx, id)
		if isGone(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		return err
	}
	if db.DBSubnetGroup == nil {
		return nil
	}
	err = p.call(ctx, "delete db subnet group", plain, func(ctx context.Context) error {
		_, err := p.rds.DeleteDBSubnetGroup(ctx, &rds.DeleteDBSubnetGroupInput{DBSubnetGroupName: db.DBSubnetGroup.DBSubnetGroupName})
		return err
	})
	if isGone(err) {
		return nil
	}
	return err
}
