package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/value"
)

// TestReferencesFollowTheValues: a reference is recorded at the planned
// value it gave: in a list the provider reordered (a set), at the
// element holding its value; where the provider planned another value,
// nowhere; under a sensitive property, nowhere.
func TestReferencesFollowTheValues(t *testing.T) {
	u := value.Unknown
	tests := []struct {
		name                   string
		cfg, resolved, planned map[string]any
		skip                   []string
		want                   map[string]string
	}{
		{
			name:     "as configured",
			cfg:      map[string]any{"network": "${net}", "groups": []any{"${a}", "${b}"}, "image": "debian-12"},
			resolved: map[string]any{"network": "vpc-1", "groups": []any{"sg-1", "sg-2"}, "image": "debian-12"},
			planned:  map[string]any{"network": "vpc-1", "groups": []any{"sg-1", "sg-2"}, "image": "debian-12"},
			want:     map[string]string{"network": "net", "groups[0]": "a", "groups[1]": "b"},
		},
		{
			name:     "a set reordered",
			cfg:      map[string]any{"groups": []any{"${b}", "${a}", "sg-0"}},
			resolved: map[string]any{"groups": []any{"sg-2", "sg-1", "sg-0"}},
			planned:  map[string]any{"groups": []any{"sg-0", "sg-1", "sg-2"}},
			want:     map[string]string{"groups[1]": "a", "groups[2]": "b"},
		},
		{
			name:     "two references to one value",
			cfg:      map[string]any{"groups": []any{"${a}", "${a2}"}},
			resolved: map[string]any{"groups": []any{"sg-1", "sg-1"}},
			planned:  map[string]any{"groups": []any{"sg-1", "sg-1"}},
			want:     map[string]string{"groups[0]": "a", "groups[1]": "a2"},
		},
		{
			name:     "two references to one value, reordered",
			cfg:      map[string]any{"groups": []any{"${a}", "${a2}", "${b}"}},
			resolved: map[string]any{"groups": []any{"sg-2", "sg-2", "sg-1"}},
			planned:  map[string]any{"groups": []any{"sg-1", "sg-2", "sg-2"}},
			want:     map[string]string{"groups[0]": "b", "groups[1]": "a", "groups[2]": "a2"},
		},
		{
			name:     "the provider planned another value",
			cfg:      map[string]any{"network": "${net}", "name": "web-${net.name}"},
			resolved: map[string]any{"network": "vpc-1", "name": "web-main"},
			planned:  map[string]any{"network": "vpc-1-normalised", "name": "web-main"},
			want:     map[string]string{"name": "net.name"},
		},
		{
			name:     "a value not yet known",
			cfg:      map[string]any{"network": "${net}", "tags": map[string]any{"vpc": "${net.arn}", "x": "y"}},
			resolved: map[string]any{"network": u, "tags": map[string]any{"vpc": u, "x": "y"}},
			planned:  map[string]any{"network": u, "tags": map[string]any{"vpc": u, "x": "y"}},
			want:     map[string]string{"network": "net", "tags.vpc": "net.arn"},
		},
		{
			name:     "an interpolation of values not yet known",
			cfg:      map[string]any{"cidr": "${a.value}/${a.id}"},
			resolved: map[string]any{"cidr": u + "/" + u},
			planned:  map[string]any{"cidr": u},
			want:     map[string]string{"cidr": "a.value, a.id"},
		},
		{
			name:     "an element interpolating one",
			cfg:      map[string]any{"names": []any{"web-${a.id}"}},
			resolved: map[string]any{"names": []any{"web-" + u}},
			planned:  map[string]any{"names": []any{u}},
			want:     map[string]string{"names[0]": "a.id"},
		},
		{
			name:     "a whole list, and an address with an index",
			cfg:      map[string]any{"zones": "${region.zones}", "subnet": `${subnets["a"].id}`},
			resolved: map[string]any{"zones": []any{"a", "b"}, "subnet": "subnet-1"},
			planned:  map[string]any{"zones": []any{"a", "b"}, "subnet": "subnet-1"},
			want:     map[string]string{"zones": "region.zones", "subnet": `subnets["a"].id`},
		},
		{
			name:     "a sensitive property",
			cfg:      map[string]any{"password": "${db.password}", "auth": map[string]any{"token": "${vault.token}"}},
			resolved: map[string]any{"password": "hunter2", "auth": map[string]any{"token": "t0k3n"}},
			planned:  map[string]any{"password": "hunter2", "auth": map[string]any{"token": "t0k3n"}},
			skip:     []string{"password", "auth"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := value.ReadTemplates(tt.cfg).(map[string]any) // as written in Kyku's reference form
			if diff := cmp.Diff(tt.want, references(cfg, tt.resolved, tt.planned, tt.skip)); diff != "" {
				t.Errorf("references (-want +got):\n%s", diff)
			}
		})
	}
}
