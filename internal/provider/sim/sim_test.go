package sim

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/providertest"
)

func TestConformance(t *testing.T) {
	fx := providertest.Default()
	fx.Agreement = agreement()
	providertest.Run(t, func(t *testing.T) provider.Provider {
		return newSim(t, Options{Dir: t.TempDir()})
	}, fx)
}

// TestConformanceSharedDir runs the suite with every subtest on one
// directory, as processes sharing a cloud would.
func TestConformanceSharedDir(t *testing.T) {
	dir := t.TempDir()
	providertest.Run(t, func(t *testing.T) provider.Provider {
		return newSim(t, Options{Dir: dir})
	}, providertest.Default())
}

func newSim(t *testing.T, opts Options) *Provider {
	t.Helper()
	if opts.Now == nil {
		opts.Now = func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }
	}
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return p
}

func vpc(name string) provider.Resource {
	return provider.Resource{Name: name, Type: "Vpc", CloudName: "pfx-" + name,
		Properties: map[string]any{"cidr": "10.0.0.0/16"}}
}

func mustCreate(t *testing.T, p *Provider, r provider.Resource) provider.Object {
	t.Helper()
	obj, err := p.Create(t.Context(), r)
	if err != nil {
		t.Fatalf("Create %s %q: %v", r.Type, r.Name, err)
	}
	return obj
}

// countObjects counts the object files of typ named cloudName.
func countObjects(t *testing.T, dir, typ, cloudName string) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, typ, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"cloudName": "`+cloudName+`"`) {
			n++
		}
	}
	return n
}

func TestObjectFile(t *testing.T) {
	dir := t.TempDir()
	p := newSim(t, Options{Dir: dir})
	obj := mustCreate(t, p, vpc("main-vpc"))
	b, err := os.ReadFile(filepath.Join(dir, "Vpc", obj.ID+".json"))
	if err != nil {
		t.Fatalf("object file: %v", err)
	}
	want := `{
  "id": "10000001",
  "type": "Vpc",
  "name": "main-vpc",
  "cloudName": "pfx-main-vpc",
  "created": "2025-01-02T03:04:05Z",
  "properties": {
    "cidr": "10.0.0.0/16"
  },
  "outputs": {
    "id": "10000001"
  }
}
`
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("object file (-want +got):\n%s", diff)
	}
}

func TestOutputs(t *testing.T) {
	p := newSim(t, Options{Dir: t.TempDir()})
	v := mustCreate(t, p, vpc("net"))
	sub := mustCreate(t, p, provider.Resource{Name: "sub", Type: "Subnet", CloudName: "pfx-sub",
		Properties: map[string]any{"network": v.ID, "cidr": "10.0.7.0/24", "zone": "sim-a"}})
	inSubnet := mustCreate(t, p, provider.Resource{Name: "web", Type: "Vm", CloudName: "pfx-web",
		Properties: map[string]any{"image": "debian-12", "subnet": sub.ID}})
	noSubnet := mustCreate(t, p, provider.Resource{Name: "bare", Type: "Vm", CloudName: "pfx-bare",
		Properties: map[string]any{"image": "debian-12"}})
	db := mustCreate(t, p, provider.Resource{Name: "db", Type: "Database", CloudName: "pfx-db",
		Properties: map[string]any{"engine": "postgres"}})
	lb := mustCreate(t, p, provider.Resource{Name: "lb", Type: "LoadBalancer", CloudName: "pfx-lb"})

	tests := []struct {
		name string
		obj  provider.Object
		want map[string]any
	}{
		{"vm in subnet", inSubnet, map[string]any{"id": "10000003", "privateIp": "10.0.7.167", "publicIp": "198.51.100.24"}},
		{"vm without subnet", noSubnet, map[string]any{"id": "10000004", "privateIp": "10.154.101.181", "publicIp": "198.51.100.25"}},
		{"database", db, map[string]any{"id": "10000005", "endpoint": "pfx-db.db.sim.internal:5432"}},
		{"load balancer", lb, map[string]any{"id": "10000006", "endpoint": "pfx-lb.lb.sim.internal"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.obj.Outputs); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReferenceCheck(t *testing.T) {
	p := newSim(t, Options{Dir: t.TempDir()})
	v := mustCreate(t, p, vpc("main-vpc"))
	sub := mustCreate(t, p, provider.Resource{Name: "sub", Type: "Subnet", CloudName: "pfx-sub",
		Properties: map[string]any{"network": v.ID, "cidr": "10.0.1.0/24", "zone": "sim-a"}})
	sg := mustCreate(t, p, provider.Resource{Name: "db-sg", Type: "SecurityGroup", CloudName: "pfx-db-sg",
		Properties: map[string]any{"network": v.ID}})
	vm := func(props map[string]any) provider.Resource {
		props["image"] = "debian-12"
		return provider.Resource{Name: "web", Type: "Vm", CloudName: "pfx-web", Properties: props}
	}
	tests := []struct {
		name string
		r    provider.Resource
		want string // error; "" means success
	}{
		{"IDs", vm(map[string]any{"network": v.ID, "subnet": sub.ID}), ""},
		{"Kyku name", vm(map[string]any{"network": "main-vpc"}),
			`sim: Vm "web": property network: "main-vpc" is not the ID of an existing Vpc`},
		{"unresolved reference", vm(map[string]any{"network": "${main-vpc}"}),
			`sim: Vm "web": property network: "${main-vpc}" is not the ID of an existing Vpc`},
		{"ID of another type", vm(map[string]any{"network": sub.ID}),
			`sim: Vm "web": property network: "10000002" is not the ID of an existing Vpc`},
		{"Kyku name in a list", vm(map[string]any{"securityGroups": []any{"web-sg"}}),
			`sim: Vm "web": property securityGroups[0]: "web-sg" is not the ID of an existing SecurityGroup`},
		{"database security groups", provider.Resource{Name: "db", Type: "Database", CloudName: "pfx-db",
			Properties: map[string]any{"engine": "postgres", "network": v.ID, "securityGroups": []any{sg.ID}}}, ""},
		{"load balancer security group by Kyku name", provider.Resource{Name: "lb", Type: "LoadBalancer", CloudName: "pfx-lb",
			Properties: map[string]any{"network": v.ID, "securityGroups": []any{"db-sg"}, "certificateArn": "arn:aws:acm:x"}},
			`sim: LoadBalancer "lb": property securityGroups[0]: "db-sg" is not the ID of an existing SecurityGroup`},
		{"unknown property", vm(map[string]any{"colour": "red"}),
			`sim: Vm "web": unknown property "colour" (want one of image, network, securityGroups, size, sshKeys, subnet, tags, userData)`},
		{"missing required", provider.Resource{Name: "web", Type: "Vm", CloudName: "pfx-web"},
			`sim: Vm "web": property image is required`},
		{"enum", provider.Resource{Name: "db", Type: "Database", CloudName: "pfx-db", Properties: map[string]any{"engine": "oracle"}},
			`sim: Database "db": property engine: "oracle" is not one of postgres, mysql, mariadb`},
		{"nested enum", provider.Resource{Name: "sg", Type: "SecurityGroup", CloudName: "pfx-sg", Properties: map[string]any{
			"network": v.ID, "ingress": []any{map[string]any{"protocol": "sctp", "cidr": "0.0.0.0/0"}}}},
			`sim: SecurityGroup "sg": property ingress[0].protocol: "sctp" is not one of tcp, udp, icmp, all`},
		{"wrong kind", provider.Resource{Name: "db", Type: "Database", CloudName: "pfx-db", Properties: map[string]any{"engine": "mysql", "storageGb": "big"}},
			`sim: Database "db": property storageGb: want integer, got "big"`},
		{"unknown type", provider.Resource{Name: "q", Type: "Queue", CloudName: "pfx-q"},
			`sim: unknown resource type "Queue" (the simulator knows Database, LoadBalancer, SecurityGroup, SshKey, Subnet, TargetGroup, Vm, Vpc)`},
		{"bad cloud name", provider.Resource{Name: "v", Type: "Vpc", CloudName: "my vpc\n", Properties: map[string]any{"cidr": "10.0.0.0/8"}},
			`sim: Vpc "v": cloud name "my vpc\n" holds a space or a control character`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Create(t.Context(), tt.r)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Create error:\n got %s\nwant %s", got, tt.want)
			}
			if err != nil && provider.IsTransient(err) {
				t.Errorf("a refused request must not be transient: %v", err)
			}
		})
	}
}

func TestUpdateImmutable(t *testing.T) {
	p := newSim(t, Options{Dir: t.TempDir()})
	ctx := t.Context()
	r := provider.Resource{Name: "web", Type: "Vm", CloudName: "pfx-web",
		Properties: map[string]any{"image": "debian-12", "size": "small"}}
	obj := mustCreate(t, p, r)

	r.Properties = map[string]any{"image": "debian-13", "size": "small"}
	_, err := p.Update(ctx, obj.ID, r)
	want := `sim: Vm "web": property image cannot change in place; replace the resource`
	if err == nil || err.Error() != want {
		t.Fatalf("Update of an immutable property: err = %v, want %s", err, want)
	}
	got, err := p.Read(ctx, "Vm", obj.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Properties["image"] != "debian-12" {
		t.Errorf("refused update still changed image to %v", got.Properties["image"])
	}

	r.Properties = map[string]any{"image": "debian-12", "size": "large"}
	up, err := p.Update(ctx, obj.ID, r)
	if err != nil {
		t.Fatalf("Update of a mutable property: %v", err)
	}
	if up.Properties["size"] != "large" || up.CloudName != "pfx-web" {
		t.Errorf("Update returned %+v", up)
	}
}

func TestDrift(t *testing.T) {
	dir := t.TempDir()
	p := newSim(t, Options{Dir: dir})
	ctx := t.Context()
	obj := mustCreate(t, p, provider.Resource{Name: "web", Type: "Vm", CloudName: "pfx-web",
		Properties: map[string]any{"image": "debian-12", "size": "small"}})
	path := filepath.Join(dir, "Vm", obj.ID+".json")

	t.Run("edit", func(t *testing.T) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(string(b), `"size": "small"`, `"size": "xlarge"`, 1)
		if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := p.Read(ctx, "Vm", obj.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]any{"image": "debian-12", "size": "xlarge"}, got.Properties); diff != "" {
			t.Errorf("Read after editing the file (-want +got):\n%s", diff)
		}
	})
	t.Run("corrupt", func(t *testing.T) {
		if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := p.Read(ctx, "Vm", obj.ID)
		if err == nil || !strings.Contains(err.Error(), path) || errors.Is(err, provider.ErrNotFound) {
			t.Errorf("Read of a corrupt file: err = %v, want an error naming %s", err, path)
		}
	})
	t.Run("delete", func(t *testing.T) {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Read(ctx, "Vm", obj.ID); !errors.Is(err, provider.ErrNotFound) {
			t.Errorf("Read after deleting the file: err = %v, want ErrNotFound", err)
		}
		if _, err := p.Lookup(ctx, "Vm", "pfx-web"); !errors.Is(err, provider.ErrNotFound) {
			t.Errorf("Lookup after deleting the file: err = %v, want ErrNotFound", err)
		}
		again := mustCreate(t, p, provider.Resource{Name: "web", Type: "Vm", CloudName: "pfx-web",
			Properties: map[string]any{"image": "debian-12"}})
		if again.ID == obj.ID {
			t.Errorf("re-created object reused ID %s", obj.ID)
		}
		if got, err := p.Lookup(ctx, "Vm", "pfx-web"); err != nil || got.ID != again.ID {
			t.Errorf("Lookup after re-create = %v, %v; want ID %s", got.ID, err, again.ID)
		}
	})
}

// TestCrashLeftovers builds the states a kill -9 can leave behind and
// checks that the next Create converges to exactly one object.
func TestCrashLeftovers(t *testing.T) {
	dir := t.TempDir()
	p := newSim(t, Options{Dir: dir})
	mustCreate(t, p, vpc("warmup")) // creates the directories and the counter
	// Killed after writing the index line, before writing the object; and
	// debris: a line without its newline.
	f, err := os.OpenFile(filepath.Join(dir, "Vpc", ".index"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("pfx-crashed 10000042\npfx-debris 1000"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// Killed after writing a temp file, before renaming it.
	if err := os.WriteFile(filepath.Join(dir, "Vpc", ".tmp-10000043-123"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, name := range []string{"crashed", "debris", "fresh"} {
		if _, err := p.Lookup(ctx, "Vpc", "pfx-"+name); !errors.Is(err, provider.ErrNotFound) {
			t.Errorf("Lookup of a half-created %s: err = %v, want ErrNotFound", name, err)
		}
		first := mustCreate(t, p, vpc(name))
		second := mustCreate(t, p, vpc(name))
		if first.ID != second.ID {
			t.Errorf("%s: two creates gave %s and %s", name, first.ID, second.ID)
		}
		if n := countObjects(t, dir, "Vpc", "pfx-"+name); n != 1 {
			t.Errorf("%s: %d objects, want 1", name, n)
		}
	}
}

func TestReadBadID(t *testing.T) {
	p := newSim(t, Options{Dir: t.TempDir()})
	for _, id := range []string{"web", "../../etc/passwd", "", "i-0abc"} {
		if _, err := p.Read(t.Context(), "Vm", id); !errors.Is(err, provider.ErrNotFound) {
			t.Errorf("Read(%q): err = %v, want ErrNotFound", id, err)
		}
		if err := p.Delete(t.Context(), "Vm", id); !errors.Is(err, provider.ErrNotFound) {
			t.Errorf("Delete(%q): err = %v, want ErrNotFound", id, err)
		}
	}
}

// TestResetByHand: a user resetting the counter, or deleting the whole
// directory under a running process, costs no collision.
func TestResetByHand(t *testing.T) {
	dir := t.TempDir()
	p := newSim(t, Options{Dir: dir})
	ctx := t.Context()
	a := mustCreate(t, p, vpc("a"))
	b := mustCreate(t, p, vpc("b"))
	if err := os.WriteFile(filepath.Join(dir, ".next-id"), []byte("10000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := mustCreate(t, p, vpc("c"))
	if c.ID == a.ID || c.ID == b.ID {
		t.Fatalf("after a counter reset, new object got the existing ID %s", c.ID)
	}
	// Another process reads the reset counter: its first IDs are taken.
	q := newSim(t, Options{Dir: dir})
	e := mustCreate(t, q, vpc("e"))
	if e.ID == a.ID || e.ID == b.ID || e.ID == c.ID {
		t.Fatalf("after a counter reset, another process's new object got the existing ID %s", e.ID)
	}
	for _, obj := range []provider.Object{a, b, c, e} {
		got, err := p.Read(ctx, "Vpc", obj.ID)
		if err != nil || got.CloudName != obj.CloudName {
			t.Errorf("Read %s = %q, %v; want %s", obj.ID, got.CloudName, err, obj.CloudName)
		}
	}

	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	d := mustCreate(t, p, vpc("a"))
	if got, err := p.Lookup(ctx, "Vpc", "pfx-a"); err != nil || got.ID != d.ID {
		t.Errorf("Lookup after the directory was deleted and a re-created = %q, %v; want %s", got.ID, err, d.ID)
	}
	if n := countObjects(t, dir, "Vpc", "pfx-a"); n != 1 {
		t.Errorf("%d objects named pfx-a, want 1", n)
	}
}
