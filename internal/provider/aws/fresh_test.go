package aws_test

// Tests for what a fresh, real AWS account refused although the old fake
// accepted it: names, key material, security groups of load balancers and
// databases, database updates and the DB subnet group. Each fails against
// the fake made as strict as AWS on that point with the provider as it was.

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/aws/awstest"
	"github.com/kyku/action/internal/provider/property"
)

// Valid OpenSSH public keys (their private halves were thrown away).
const (
	keyA = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMPpQ50tnXzmLZQoHDQXbgGqKliupyDcgqzZpLUd/wBU kyku-example-1"
	keyB = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDD7mtCWCkynCPXO8I9Wt0kJYX3fYlJvr2Ms9cycr5ee kyku-example-2"
)

// site is a VPC over two zones: a public and a private subnet in each,
// and a security group.
type site struct {
	vpc, sg         string
	public, private []string
}

func newSite(t *testing.T, p *aws.Provider) site {
	t.Helper()
	var s site
	s.vpc = mustCreate(t, p, res("Vpc", "net", map[string]any{"cidr": "10.1.0.0/16"})).ID
	for i, z := range []string{"eu-west-1a", "eu-west-1b"} {
		pub := mustCreate(t, p, res("Subnet", "pub-"+z, map[string]any{"network": s.vpc, "cidr": "10.1." + string(rune('0'+i)) + ".0/24", "zone": z, "public": true}))
		priv := mustCreate(t, p, res("Subnet", "priv-"+z, map[string]any{"network": s.vpc, "cidr": "10.1." + string(rune('5'+i)) + ".0/24", "zone": z}))
		s.public, s.private = append(s.public, pub.ID), append(s.private, priv.ID)
	}
	s.sg = mustCreate(t, p, res("SecurityGroup", "db-sg", map[string]any{"network": s.vpc, "ingress": []any{rule("tcp", 5432, "10.1.0.0/16")}})).ID
	return s
}

func apiCodeOf(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// RDS identifiers start with a letter; a cloud name starts with the hex
// deploy prefix, often a digit. The provider puts "db-" in front.
func TestRDSIdentifierStartsWithALetter(t *testing.T) {
	p, srv := setup(t)
	s := newSite(t, p)
	r := res("Database", "app-db", map[string]any{"network": s.vpc, "engine": "postgres", "version": "16", "size": "small", "storageGb": float64(20)})
	r.Prefix, r.CloudName = "1a2b3c4d", "1a2b3c4d-app-db"
	db := mustCreate(t, p, r)
	if !strings.HasSuffix(db.ID, ":db:db-1a2b3c4d-app-db") || db.CloudName != r.CloudName {
		t.Errorf("db %s named %q; want the identifier db-1a2b3c4d-app-db and the cloud name %q", db.ID, db.CloudName, r.CloudName)
	}
	srv.Edit(func(st *awstest.State) {
		if st.DBSubnetGroups["db-1a2b3c4d-app-db"] == nil {
			t.Errorf("no DB subnet group named like the instance: %v", st.DBSubnetGroups)
		}
	})
	if got, err := p.Lookup(t.Context(), "Database", r.CloudName); err != nil || got.ID != db.ID {
		t.Errorf("lookup by cloud name: %v, %v", got.ID, err)
	}
}

// Names a service would refuse are refused before any call, saying which
// rule; the same check is what the engine asks at plan time (CheckName).
func TestNamesCheckedBeforeAnyCall(t *testing.T) {
	for _, tc := range []struct {
		typ, name, want string
	}{
		{"Database", "app_db", "RDS instance identifier"},
		{"Database", "app--db", "two hyphens"},
		{"Database", "app-", "end with a hyphen"},
		{"Database", strings.Repeat("d", 60), "63 characters"},
		{"LoadBalancer", "web_lb", "load balancer name"},
		{"TargetGroup", "web.tg", "target group name"},
		{"SecurityGroup", "web sg!?", "security group name"},
	} {
		t.Run(tc.typ+" "+tc.name, func(t *testing.T) {
			p, srv := setup(t)
			r := res(tc.typ, tc.name, map[string]any{"network": "vpc-0123", "engine": "postgres", "targetGroup": "arn:x", "targets": []any{"i-0123"}})
			r.CloudName = "1a2b3c4d-" + tc.name
			err := p.CheckName(tc.typ, r.CloudName)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckName = %v, want it to mention %q", err, tc.want)
			}
			_, err = p.Create(t.Context(), r)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Create: err = %v, want the name rule", err)
			}
			if n := srv.Requests(); n != 0 {
				t.Errorf("%d requests sent for a name AWS refuses; want none", n)
			}
		})
	}
	p, _ := setup(t)
	for _, ok := range [][2]string{{"Database", "1a2b3c4d-App-DB"}, {"LoadBalancer", "1a2b3c4d-" + strings.Repeat("w", 40)}, {"Vm", "1a2b3c4d-web_0"}} {
		if err := p.CheckName(ok[0], ok[1]); err != nil {
			t.Errorf("CheckName(%s, %q) = %v, want nil", ok[0], ok[1], err)
		}
	}
}

// EC2 parses the key: the old example's key was not a valid ed25519 key.
func TestImportKeyMaterialIsValidated(t *testing.T) {
	p, _ := setup(t)
	bad := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKykuQuickstartExampleKeyOnly0000000000 deploy@kyku"
	_, err := p.Create(t.Context(), res("SshKey", "bad", map[string]any{"publicKey": bad}))
	if apiCodeOf(err) != "InvalidKey.Format" || provider.IsTransient(err) {
		t.Errorf("malformed key: err = %v, want a permanent InvalidKey.Format", err)
	}
	r := res("SshKey", "good", map[string]any{"publicKey": keyA})
	k := mustCreate(t, p, r)
	noop(t, p, r, k.ID)
}

// The load balancer and the database get the security groups asked for,
// not the VPC's default group; the database is never public.
func TestLoadBalancerAndDatabaseSecurityGroups(t *testing.T) {
	p, srv := setup(t)
	ctx := t.Context()
	s := newSite(t, p)
	lbSG := mustCreate(t, p, res("SecurityGroup", "lb-sg", map[string]any{"network": s.vpc, "ingress": []any{rule("tcp", 80, "0.0.0.0/0")}})).ID
	vm := mustCreate(t, p, res("Vm", "web", map[string]any{"subnet": s.public[0], "image": "debian-12"}))
	tg := mustCreate(t, p, res("TargetGroup", "tg", map[string]any{"targets": []any{vm.ID}}))
	lbR := res("LoadBalancer", "lb", map[string]any{"network": s.vpc, "port": float64(80), "targetGroup": tg.ID, "securityGroups": []any{lbSG}})
	lb := mustCreate(t, p, lbR)
	noop(t, p, lbR, lb.ID)
	dbR := res("Database", "db", map[string]any{"network": s.vpc, "engine": "postgres", "size": "small", "storageGb": float64(20), "securityGroups": []any{s.sg}})
	db := mustCreate(t, p, dbR)
	noop(t, p, dbR, db.ID, "version")
	srv.Edit(func(st *awstest.State) {
		for _, l := range st.LBs {
			if d := cmp.Diff([]string{lbSG}, l.Groups); d != "" {
				t.Errorf("load balancer groups (-want +got):\n%s", d)
			}
		}
		d := st.DBs["demo-db"]
		if diff := cmp.Diff([]string{s.sg}, d.Groups); diff != "" || d.Public {
			t.Errorf("database groups (-want +got):\n%s; public %v, want false", diff, d.Public)
		}
	})

	// Changing them in place.
	lbR.Properties["securityGroups"] = property.List(sortedCopy([]string{lbSG, s.sg}))
	if _, err := p.Update(ctx, lb.ID, lbR); err != nil {
		t.Fatal(err)
	}
	noop(t, p, lbR, lb.ID)
	dbR.Properties["securityGroups"] = []any{lbSG}
	if _, err := p.Update(ctx, db.ID, dbR); err != nil {
		t.Fatal(err)
	}
	noop(t, p, dbR, db.ID, "version")
	if srv.Calls("SetSecurityGroups") != 1 {
		t.Errorf("SetSecurityGroups calls = %d, want 1", srv.Calls("SetSecurityGroups"))
	}

	// Without securityGroups, nothing is reported that the config lacks.
	db2R := res("Database", "db2", map[string]any{"network": s.vpc, "engine": "mysql", "size": "small", "storageGb": float64(20)})
	db2 := mustCreate(t, p, db2R)
	noop(t, p, db2R, db2.ID, "version")
	srv.Edit(func(st *awstest.State) {
		if st.DBs["demo-db2"].Public {
			t.Error("a database without securityGroups is publicly accessible; want PubliclyAccessible=false always")
		}
	})
}

func dbStack(t *testing.T) (*aws.Provider, *awstest.Server, provider.Resource, provider.Object) {
	t.Helper()
	p, srv := setup(t)
	s := newSite(t, p)
	r := res("Database", "db", map[string]any{"network": s.vpc, "engine": "postgres", "version": "16", "size": "small", "storageGb": float64(20)})
	return p, srv, r, mustCreate(t, p, r)
}

// An update returns once RDS has started the modification and the
// instance has settled (several reads in a row), not on the first read
// that still says "available" with the change pending; storage
// optimization (hours on AWS) counts as settled.
func TestDatabaseUpdateWaitsForTheModification(t *testing.T) {
	p, srv, r, db := dbStack(t)
	r.Properties["size"] = "medium"
	got, err := p.Update(t.Context(), db.ID, r)
	if err != nil {
		t.Fatal(err)
	}
	if got.Properties["size"] != "medium" {
		t.Errorf("update returned size %v, want medium (the modification applied)", got.Properties["size"])
	}
	srv.Edit(func(st *awstest.State) {
		d := st.DBs["demo-db"]
		if d.Class != "db.t3.medium" || len(d.Script) != 0 || d.Pending != nil {
			t.Errorf("update returned while RDS still modifies: class %s, statuses to come %v", d.Class, d.Script)
		}
	})
	r.Properties["storageGb"] = float64(40)
	got, err = p.Update(t.Context(), db.ID, r)
	if err != nil {
		t.Fatalf("storage growth: %v (storage-optimization must count as settled)", err)
	}
	if got.Properties["storageGb"] != float64(40) {
		t.Errorf("storageGb = %v, want 40", got.Properties["storageGb"])
	}
}

// A new major version needs AllowMajorVersionUpgrade.
func TestDatabaseMajorVersionUpgrade(t *testing.T) {
	p, srv, r, db := dbStack(t)
	r.Properties["version"] = "17"
	got, err := p.Update(t.Context(), db.ID, r)
	if err != nil {
		t.Fatal(err)
	}
	if got.Properties["version"] != "17" {
		t.Errorf("version = %v, want 17", got.Properties["version"])
	}
	srv.Edit(func(st *awstest.State) {
		if v := st.DBs["demo-db"].Version; v != "17.4" {
			t.Errorf("engine version %s, want 17.4", v)
		}
	})
}

// Storage never shrinks on RDS, and growth of less than 10% would be
// rounded up (a diff forever): both are refused before any call.
func TestDatabaseStorageChangesRDSWouldNotMake(t *testing.T) {
	for _, tc := range []struct {
		gb   float64
		want string
	}{
		{10, "cannot shrink"},
		{21, "at least 10%"},
	} {
		p, srv, r, db := dbStack(t)
		r.Properties["storageGb"] = tc.gb
		_, err := p.Update(t.Context(), db.ID, r)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("storageGb 20 → %v: err = %v, want %q", tc.gb, err, tc.want)
		}
		if n := srv.Calls("ModifyDBInstance"); n != 0 {
			t.Errorf("storageGb 20 → %v: ModifyDBInstance called %d times, want 0", tc.gb, n)
		}
	}
	p, srv, r, db := dbStack(t)
	r.Properties["storageGb"] = float64(22)
	if _, err := p.Update(t.Context(), db.ID, r); err != nil {
		t.Errorf("20 → 22 GB (exactly 10%%): %v", err)
	}
	srv.Edit(func(st *awstest.State) {
		if st.DBs["demo-db"].Storage != 22 {
			t.Errorf("storage %d, want 22", st.DBs["demo-db"].Storage)
		}
	})
}

// The DB subnet group is not left behind: a failed instance create removes
// it, a delete removes it by name even when the instance is already gone,
// an interrupted delete is finished by the next one, and a group left by
// an earlier run is brought to the current subnets.
func TestDBSubnetGroupDoesNotLeak(t *testing.T) {
	ctx := t.Context()
	groups := func(srv *awstest.Server) []string {
		var out []string
		srv.Edit(func(st *awstest.State) {
			for n := range st.DBSubnetGroups {
				out = append(out, n)
			}
		})
		return out
	}
	t.Run("create fails", func(t *testing.T) {
		p, srv := setup(t)
		s := newSite(t, p)
		srv.Fail("CreateDBInstance", 1, 400, "InvalidParameterValue")
		_, err := p.Create(ctx, res("Database", "db", map[string]any{"network": s.vpc, "engine": "postgres"}))
		if apiCodeOf(err) != "InvalidParameterValue" {
			t.Fatalf("err = %v", err)
		}
		if g := groups(srv); len(g) != 0 {
			t.Errorf("subnet groups left: %v", g)
		}
	})
	t.Run("instance already gone", func(t *testing.T) {
		p, srv, _, db := dbStack(t)
		srv.Edit(func(st *awstest.State) { delete(st.DBs, "demo-db") })
		if err := p.Delete(ctx, "Database", db.ID); err != nil && !errors.Is(err, provider.ErrNotFound) {
			t.Fatal(err)
		}
		if g := groups(srv); len(g) != 0 {
			t.Errorf("subnet groups left: %v", g)
		}
	})
	t.Run("interrupted delete", func(t *testing.T) {
		p, srv, _, db := dbStack(t)
		srv.Edit(func(st *awstest.State) { st.DBs["demo-db"].Status = "deleting" })
		if _, err := p.Read(ctx, "Database", db.ID); err != nil {
			t.Fatalf("read of a database being deleted: %v; it still exists (its subnet group too)", err)
		}
		if err := p.Delete(ctx, "Database", db.ID); err != nil && !errors.Is(err, provider.ErrNotFound) {
			t.Fatal(err)
		}
		if g := groups(srv); len(g) != 0 {
			t.Errorf("subnet groups left: %v", g)
		}
	})
	t.Run("stale group", func(t *testing.T) {
		p, srv := setup(t)
		s := newSite(t, p)
		srv.Edit(func(st *awstest.State) {
			st.DBSubnetGroups["demo-db"] = &awstest.DBSubnetGroup{Name: "demo-db", VpcID: s.vpc, Subnets: []string{s.public[0]}, Tags: map[string]string{}}
		})
		mustCreate(t, p, res("Database", "db", map[string]any{"network": s.vpc, "engine": "postgres"}))
		srv.Edit(func(st *awstest.State) {
			if d := cmp.Diff(sortedCopy(s.private), st.DBSubnetGroups["demo-db"].Subnets); d != "" {
				t.Errorf("group subnets (-want +got):\n%s", d)
			}
		})
	})
}

func sortedCopy(ss []string) []string {
	out := append([]string(nil), ss...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
