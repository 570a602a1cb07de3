package aws

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/kyku/action/internal/provider"
	rds "github.com/kyku/action/internal/provider/aws/rdsapi"
	"github.com/kyku/action/internal/provider/property"
	"github.com/kyku/action/internal/value"
)

// checkStorage refuses a storage change RDS would not make as asked: it
// never shrinks storage, and rounds growth of less than 10% up to 10%
// (which would show as a difference on every plan).
func checkStorage(have, want int32) error {
	switch {
	case want < have:
		return fmt.Errorf("storageGb cannot shrink from %d to %d: RDS storage only grows (replace the database to shrink it)", have, want)
	case want > have && int64(want)*10 < int64(have)*11:
		return fmt.Errorf("storageGb %d is less than 10%% above %d: RDS would round it up to %d; grow it by at least 10%%", want, have, (int64(have)*11+9)/10)
	}
	return nil
}

// storageCooldown is how long after a storage change RDS takes no other:
// "you can't make further storage modifications for either six (6) hours
// or while the DB instance is in storage-optimization, whichever is
// longer" (Amazon RDS User Guide, Increasing DB instance storage
// capacity).
const storageCooldown = 6 * time.Hour

// storageBusy says why RDS would refuse a storage change of instance
// ident now, or "": it is in storage-optimization, a storage change is
// pending, or its last storage change began less than storageCooldown
// ago. DescribeDBInstances reports no time of the last change; its
// events do ("Applying modification to allocated storage", kept 14
// days), so they are read for the cooldown. Gone is "" (the plan
// creates it).
func (k dbKind) storageBusy(ctx context.Context, ident string) (string, error) {
	p := k.p
	db, err := k.describe(ctx, ident)
	if provider.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if aws.ToString(db.DBInstanceStatus) == "storage-optimization" {
		return "RDS is still optimizing this database's storage after its last storage change (status storage-optimization) and takes no other storage change until that is done and 6 hours have passed; plan this change again later", nil
	}
	if pm := db.PendingModifiedValues; pm != nil && pm.AllocatedStorage != nil {
		return fmt.Sprintf("a storage change of this database to %d GB is pending already; plan again once it is applied", aws.ToInt32(pm.AllocatedStorage)), nil
	}
	now := p.opts.Now().UTC()
	var last time.Time
	err = p.pages(ctx, "describe db events", plain, func(ctx context.Context, token *string) (*string, error) {
		out, err := p.rds.DescribeEvents(ctx, &rds.DescribeEventsInput{
			SourceType: rds.SourceTypeDbInstance, SourceIdentifier: db.DBInstanceIdentifier,
			StartTime: aws.Time(now.Add(-storageCooldown)), EndTime: aws.Time(now), Marker: token,
		})
		if err != nil {
			return nil, err
		}
		for _, e := range out.Events {
			if storageEvent(aws.ToString(e.Message)) && aws.ToTime(e.Date).After(last) {
				last = aws.ToTime(e.Date)
			}
		}
		return out.Marker, nil
	})
	if err != nil {
		return "", err
	}
	if next := last.Add(storageCooldown); !last.IsZero() && now.Before(next) {
		return fmt.Sprintf("the last storage change of this database began at %s UTC, and RDS takes the next one 6 hours after that: from %s UTC", last.UTC().Format("2006-01-02 15:04"), next.UTC().Format("2006-01-02 15:04")), nil
	}
	return "", nil
}

// storageEvent reports whether an RDS event's message says a storage
// modification began ("Applying modification to allocated storage";
// storage type and IOPS changes are storage changes too).
func storageEvent(msg string) bool {
	m := strings.ToLower(msg)
	return strings.HasPrefix(m, "applying modification to") && (strings.Contains(m, "storage") || strings.Contains(m, "iops"))
}

func (k dbKind) Update(ctx context.Context, id string, r provider.Resource, cur provider.Object) (provider.Object, error) {
	p := k.p
	db, err := k.describe(ctx, id)
	if err != nil {
		return provider.Object{}, err
	}
	size := property.StringOr(r.Properties, "size", "small")
	class, err := dbClass(size)
	if err != nil {
		return provider.Object{}, err
	}
	in := &rds.ModifyDBInstanceInput{DBInstanceIdentifier: db.DBInstanceIdentifier, ApplyImmediately: aws.Bool(true)}
	changed := false
	if class != aws.ToString(db.DBInstanceClass) {
		in.DBInstanceClass, changed = aws.String(class), true
	}
	gb := int32(property.Int(r.Properties, "storageGb", 20))
	if err := checkStorage(aws.ToInt32(db.AllocatedStorage), gb); err != nil {
		return provider.Object{}, err
	}
	if gb != aws.ToInt32(db.AllocatedStorage) {
		// Planning refused this already; time passing only lifts it.
		// Refuse before any request rather than half-way.
		reason, err := k.storageBusy(ctx, aws.ToString(db.DBInstanceIdentifier))
		if err != nil {
			return provider.Object{}, err
		}
		if reason != "" {
			return provider.Object{}, fmt.Errorf("property storageGb: %s", reason)
		}
		in.AllocatedStorage, changed = aws.Int32(gb), true
	}
	engine, running := aws.ToString(db.Engine), aws.ToString(db.EngineVersion)
	if v := property.String(r.Properties, "version"); v != "" && v != running && !strings.HasPrefix(running, v+".") {
		in.EngineVersion, changed = aws.String(v), true
		if dbMajor(engine, v) != dbMajor(engine, running) {
			in.AllowMajorVersionUpgrade = aws.Bool(true)
		}
	}
	if _, set := r.Properties["securityGroups"]; set && !value.Equal(property.List(sortedStrs(property.Strings(r.Properties, "securityGroups"))), property.List(dbGroupIDs(db))) {
		in.VpcSecurityGroupIds, changed = property.Strings(r.Properties, "securityGroups"), true
	}
	if db.DBSubnetGroup != nil && property.String(r.Properties, "network") != "" {
		subnets, err := p.privateSubnets(ctx, property.String(r.Properties, "network"))
		if err != nil {
			return provider.Object{}, err
		}
		if err := k.setSubnets(ctx, aws.ToString(db.DBSubnetGroup.DBSubnetGroupName), subnets); err != nil {
			return provider.Object{}, err
		}
	}
	if changed {
		if !settled(db) { // RDS modifies only an available instance
			if _, err := k.waitSettled(ctx, plain, id, nil); err != nil {
				return provider.Object{}, err
			}
		}
		err := p.call(ctx, "modify db instance", plain, func(ctx context.Context) error {
			err := p.rds.ModifyDBInstance(ctx, in)
			return err
		})
		if err != nil {
			return provider.Object{}, err
		}
	}
	if err := k.syncTags(ctx, db, dbTags(r, size)); err != nil {
		return provider.Object{}, err
	}
	if !changed {
		return k.Read(ctx, id)
	}
	return k.waitSettled(ctx, plain, id, func(db rds.DBInstance) bool {
		return (in.DBInstanceClass == nil || aws.ToString(db.DBInstanceClass) == class) &&
			(in.AllocatedStorage == nil || aws.ToInt32(db.AllocatedStorage) == gb) &&
			(in.EngineVersion == nil || aws.ToString(db.EngineVersion) == aws.ToString(in.EngineVersion) ||
				strings.HasPrefix(aws.ToString(db.EngineVersion), aws.ToString(in.EngineVersion)+".")) &&
			(in.VpcSecurityGroupIds == nil || strings.Join(dbGroupIDs(db), ",") == strings.Join(sortedStrs(in.VpcSecurityGroupIds), ","))
	})
}

func (k dbKind) syncTags(ctx context.Context, db rds.DBInstance, want map[string]string) error {
	p := k.p
	have := map[string]string{}
	for _, t := range db.TagList {
		have[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	if have[tagNameAWS] != "" {
		want[tagNameAWS] = have[tagNameAWS]
	}
	set, remove := tagDiff(have, want)
	arn := db.DBInstanceArn
	if len(set) > 0 {
		err := p.call(ctx, "tag db instance", plain, func(ctx context.Context) error {
			err := p.rds.AddTagsToResource(ctx, &rds.AddTagsToResourceInput{ResourceName: arn, Tags: rdsTags(set)})
			return err
		})
		if err != nil {
			return err
		}
	}
	if len(remove) > 0 {
		return p.call(ctx, "untag db instance", plain, func(ctx context.Context) error {
			err := p.rds.RemoveTagsFromResource(ctx, &rds.RemoveTagsFromResourceInput{ResourceName: arn, TagKeys: remove})
			return err
		})
	}
	return nil
}

// waitGone polls until the instance is gone.
func (k dbKind) waitGone(ctx context.Context, id string) error {
	return k.p.poll(ctx, "db instance "+id+" deleted", func(ctx context.Context) (bool, error) {
		_, err := k.describe(ctx, id)
		if provider.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}

// delete deletes the instance (no final snapshot), waits until it is gone
// and deletes its DB subnet group by name — also when the instance was
// already gone (a delete interrupted after the instance went), so the
// group never outlives it.
func (k dbKind) Delete(ctx context.Context, id string) error {
	p, ident := k.p, dbIdent(id)
	group := ident
	db, err := k.describe(ctx, ident)
	if provider.IsNotFound(err) {
		if gerr := k.dropSubnetGroup(ctx, group); gerr != nil {
			return gerr
		}
		return err
	}
	if err != nil {
		return err
	}
	if db.DBSubnetGroup != nil {
		group = aws.ToString(db.DBSubnetGroup.DBSubnetGroupName)
	}
	if aws.ToString(db.DBInstanceStatus) != "deleting" {
		err = p.call(ctx, "delete db instance", plain, func(ctx context.Context) error {
			err := p.rds.DeleteDBInstance(ctx, &rds.DeleteDBInstanceInput{
				DBInstanceIdentifier: db.DBInstanceIdentifier, SkipFinalSnapshot: aws.Bool(true), DeleteAutomatedBackups: aws.Bool(true),
			})
			if apiCode(err) == "InvalidDBInstanceState" {
				// Someone else started deleting it meanwhile?
				if now, derr := k.describe(ctx, ident); provider.IsNotFound(derr) || aws.ToString(now.DBInstanceStatus) == "deleting" {
					return nil
				}
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	if err := k.waitGone(ctx, ident); err != nil {
		return err
	}
	return k.dropSubnetGroup(ctx, group)
}
