package sim

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestOptionsFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    Options
		wantErr string
	}{
		{name: "defaults", env: nil, want: Options{Dir: ".kyku-state/sim"}},
		{name: "dir", env: map[string]string{"KYKU_SIM_DIR": "/tmp/cloud"}, want: Options{Dir: "/tmp/cloud"}},
		{name: "fixed latency", env: map[string]string{"KYKU_SIM_LATENCY": "10ms"},
			want: Options{Dir: ".kyku-state/sim", LatencyMin: 10 * time.Millisecond, LatencyMax: 10 * time.Millisecond}},
		{name: "latency range", env: map[string]string{"KYKU_SIM_LATENCY": "5ms-200ms"},
			want: Options{Dir: ".kyku-state/sim", LatencyMin: 5 * time.Millisecond, LatencyMax: 200 * time.Millisecond}},
		{name: "zero latency", env: map[string]string{"KYKU_SIM_LATENCY": "0"}, want: Options{Dir: ".kyku-state/sim"}},
		{name: "fail rate", env: map[string]string{"KYKU_SIM_FAIL_RATE": "0.25"}, want: Options{Dir: ".kyku-state/sim", FailRate: 0.25}},
		{name: "fail rules", env: map[string]string{"KYKU_SIM_FAIL": "create:Vm:web, *:*:db,delete:Vpc:*"},
			want: Options{Dir: ".kyku-state/sim", Fail: []FailRule{
				{Op: OpCreate, Type: "Vm", Name: "web"}, {Op: OpAny, Type: "*", Name: "db"}, {Op: OpDelete, Type: "Vpc", Name: "*"},
			}}},
		{name: "seed", env: map[string]string{"KYKU_SIM_SEED": "42"}, want: Options{Dir: ".kyku-state/sim", Seed: 42}},
		{name: "bulk", env: map[string]string{"KYKU_SIM_BULK": "true", "KYKU_SIM_PAGE_SIZE": "50"}, want: Options{Dir: ".kyku-state/sim", Bulk: true, PageSize: 50}},

		{name: "bad latency", env: map[string]string{"KYKU_SIM_LATENCY": "fast"},
			wantErr: `sim: KYKU_SIM_LATENCY="fast": want a duration like 10ms or a range like 5ms-200ms`},
		{name: "negative latency", env: map[string]string{"KYKU_SIM_LATENCY": "-5ms"},
			wantErr: `sim: KYKU_SIM_LATENCY="-5ms": want a duration like 10ms or a range like 5ms-200ms`},
		{name: "inverted range", env: map[string]string{"KYKU_SIM_LATENCY": "200ms-5ms"},
			wantErr: `sim: KYKU_SIM_LATENCY="200ms-5ms": range minimum 200ms is above its maximum 5ms`},
		{name: "half range", env: map[string]string{"KYKU_SIM_LATENCY": "5ms-"},
			wantErr: `sim: KYKU_SIM_LATENCY="5ms-": want a duration like 10ms or a range like 5ms-200ms`},
		{name: "rate above 1", env: map[string]string{"KYKU_SIM_FAIL_RATE": "1.5"},
			wantErr: `sim: KYKU_SIM_FAIL_RATE="1.5": want a probability between 0 and 1`},
		{name: "rate not a number", env: map[string]string{"KYKU_SIM_FAIL_RATE": "often"},
			wantErr: `sim: KYKU_SIM_FAIL_RATE="often": want a probability between 0 and 1`},
		{name: "rate NaN", env: map[string]string{"KYKU_SIM_FAIL_RATE": "NaN"},
			wantErr: `sim: KYKU_SIM_FAIL_RATE="NaN": want a probability between 0 and 1`},
		{name: "rule without fields", env: map[string]string{"KYKU_SIM_FAIL": "create:Vm"},
			wantErr: `sim: KYKU_SIM_FAIL="create:Vm": rule "create:Vm": want op:Type:name, e.g. create:Vm:web`},
		{name: "rule bad op", env: map[string]string{"KYKU_SIM_FAIL": "explode:Vm:web"},
			wantErr: `sim: KYKU_SIM_FAIL="explode:Vm:web": rule "explode:Vm:web": unknown operation "explode" (want create, read, update, delete or *)`},
		{name: "rule bad type", env: map[string]string{"KYKU_SIM_FAIL": "create:Server:web"},
			wantErr: `sim: KYKU_SIM_FAIL="create:Server:web": rule "create:Server:web": unknown type "Server" (want one of Database, LoadBalancer, SecurityGroup, SshKey, Subnet, TargetGroup, Vm, Vpc or *)`},
		{name: "bad seed", env: map[string]string{"KYKU_SIM_SEED": "x"},
			wantErr: `sim: KYKU_SIM_SEED="x": want an integer`},
		{name: "bad bulk", env: map[string]string{"KYKU_SIM_BULK": "sometimes"},
			wantErr: `sim: KYKU_SIM_BULK="sometimes": want true or false`},
		{name: "bad page size", env: map[string]string{"KYKU_SIM_PAGE_SIZE": "0"},
			wantErr: `sim: KYKU_SIM_PAGE_SIZE="0": want a positive integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := OptionsFromEnv(env(tt.env))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v\nwant %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Options{}, "Now")); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFactory(t *testing.T) {
	ctx := t.Context()
	getenv := env(map[string]string{"KYKU_SIM_DIR": "/from/env", "KYKU_SIM_LATENCY": "1ms"})
	p, err := Factory(ctx, map[string]string{"dir": "/from/settings"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	s := p.(*Provider)
	if s.Dir() != "/from/settings" || s.opts.LatencyMax != time.Millisecond || p.Name() != "sim" {
		t.Errorf("Factory: dir %q, latency %s, name %q; want the setting's dir and the env's latency", s.Dir(), s.opts.LatencyMax, p.Name())
	}
	if _, err := Factory(ctx, map[string]string{"region": "eu"}, getenv); err == nil ||
		err.Error() != `sim: unknown setting "region" (want dir, latency, failRate, fail, seed, bulk or pageSize)` {
		t.Errorf("unknown setting: err = %v", err)
	}
	if _, err := Factory(ctx, map[string]string{"failRate": "2"}, getenv); err == nil ||
		err.Error() != `setting failRate: sim: KYKU_SIM_FAIL_RATE="2": want a probability between 0 and 1` {
		t.Errorf("bad setting: err = %v", err)
	}
	if _, err := Factory(ctx, nil, env(map[string]string{"KYKU_SIM_LATENCY": "soon"})); err == nil {
		t.Error("bad environment: no error")
	}
	// The bulk knob decides whether the engine gets a provider that lists
	// (Bulk) or one that reads one object at a time.
	for _, bulk := range []string{"false", "true"} {
		p, err := Factory(ctx, map[string]string{"bulk": bulk, "pageSize": "7"}, getenv)
		if err != nil {
			t.Fatal(err)
		}
		_, isBulk := p.(Bulk)
		if isBulk != (bulk == "true") {
			t.Errorf("bulk=%s: provider %T is a Bulk: %v", bulk, p, isBulk)
		}
	}
}
