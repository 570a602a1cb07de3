package plan_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
)

// A field a digest leaves out, with the reason, by its path in
// everyField's plan (a slice's element is [0]); a struct's path names all
// its fields. A field added to Plan, Change or a struct they hold is in a
// digest or here: otherwise TestDigestsCoverEveryField fails and names it.

// changesDigestLeavesOut are the fields plan.ChangesDigest leaves out.
var changesDigestLeavesOut = map[string]string{
	"FormatVersion":    "the plan file's format, not what the plan does; Decode and apply refuse another",
	"CreatedAt":        "two plans of the same changes differ in it",
	"Counters":         "counted from the changes (Count), which are in",
	"Levels":           "every change's Level is in; the others are resources without a change",
	"Lineage":          "the state planned against: apply checks it under the lock (engine.StaleError)",
	"Serial":           "the state planned against: apply checks it under the lock (engine.StaleError)",
	"StateExists":      "the state planned against: apply checks it under the lock (engine.StaleError)",
	"Backend":          "the state planned against: apply checks it under the lock (engine.StaleError)",
	"Objects":          "the state planned against, object by object: a leased apply checks them (engine.StaleError) and plans the changes again",
	"VariablesHash":    "a digest of secrets, shown nowhere; apply compares it with the configuration it is given",
	"SecretsHash":      "a digest of secrets, shown nowhere; apply compares it with the configuration it is given",
	"OutputChanges":    "shown, not applied: apply evaluates the outputs again",
	"Warnings":         "shown, not applied: check assertions never change what apply does",
	"UnchangedOutputs": "shown, not applied: apply evaluates the outputs again",
	"Config":           "ConfigHash, its hash, is in",
	"WriteOnly":        "which configured values a plan file leaves out; the values themselves are the configuration's (ConfigHash)",
	"Data":             "in memory only: applying a saved plan reads the data sources again",
	"Secrets":          "in memory only: what errors are scrubbed of",
	"Redacted":         "how a plan file shows the values, not what the plan does; apply refuses a redacted plan",
	"Reads":            "how much the plan read, not what it does; apply plans again reading what it read",

	"Changes[0].Provider":        "follows from Type (its prefix names the provider) and the plan's Provider and configuration, which are in",
	"Changes[0].Outputs":         "outputs read back on a no-op: recorded in state, nothing in the cloud changes",
	"Changes[0].Sensitive":       "what is shown masked, decided by the configuration (ConfigHash) and the provider's schema; each property change's Sensitive is in",
	"Changes[0].SensitiveWithin": "which parts of a planned value are shown masked, decided by the configuration (ConfigHash); each property change's Sensitive is in",
	"Changes[0].SecretParts":     "which parts apply records as secret, decided by the configuration (ConfigHash); each property change's Sensitive is in",
	"Changes[0].Imported":        "in memory only: applying a saved plan plans again and records what that plan read",
	// What the plan read and was planned from, not what it does: apply
	// plans again (its own reads) and reads each object it changes again.
	"Changes[0].NotRead":      "what the plan read, not what it does",
	"Changes[0].LastRead":     "what the plan read, not what it does",
	"Changes[0].Basis":        "digests of what the change is planned from (the configuration, ConfigHash, is in); apply plans again",
	"Changes[0].PriorDigests": "digests of the object as read; apply reads it again and compares just before changing it",
	// Shown beside the values, never applied: the values are in.
	"Changes[0].References": "presentation only: which reference of the configuration (ConfigHash) gave a value; the values themselves are in the property changes",
	// The provider's planned bytes hold sensitive values in clear: the
	// engine compares them byte for byte beside the digest (Planned.Same).
	"Changes[0].Planned.PriorState":   "sensitive values in clear; compared by Planned.Same",
	"Changes[0].Planned.PriorPrivate": "sensitive values in clear; compared by Planned.Same",
	"Changes[0].Planned.State":        "sensitive values in clear; compared by Planned.Same",
	"Changes[0].Planned.Private":      "sensitive values in clear; compared by Planned.Same",
	"Changes[0].Planned.Sensitive":    "what the provider's schema has shown masked; each property change's Sensitive is in",
	"Changes[0].Planned.Values":       "in memory only; the property changes show them",
	"Changes[0].Properties[0].Within": "set only by package render, for what it shows, from SensitiveWithin; never in a plan",
}

// fileDigestLeavesOut are the fields plan.FileDigest (the digest a plan
// file carries: its JSON) leaves out, each tagged json:"-".
var fileDigestLeavesOut = map[string]string{
	"Data":    "in memory only: applying a saved plan reads the data sources again",
	"Secrets": "in memory only: a plan file holds no secret",

	"Changes[0].Imported":             "in memory only: applying a saved plan plans again and records what that plan read",
	"Changes[0].Planned.Values":       "in memory only; the property changes show them",
	"Changes[0].Properties[0].Within": "set only by package render, for what it shows, from SensitiveWithin; never in a plan",
}

// everyField is a plan with every field of Plan, of its changes and of
// the structs they hold set (a slice of them has one element, a pointer
// to one is set), so that each can be changed and its field reached.
func everyField() *plan.Plan {
	cfg := &config.Config{Provider: config.ProviderConfig{Name: "sim"}, Resources: []*config.Resource{
		{Name: "web", Type: "Vm", Properties: map[string]any{"image": "debian-13", "userData": "hello"}},
	}}
	lastRead := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	p := &plan.Plan{
		FormatVersion: plan.FormatVersion, Environment: "prod", Provider: "sim",
		CreatedAt: time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC),
		Changes: []plan.Change{{
			Action: plan.Update, ResourceID: "web", Type: "Vm", Provider: "sim", Level: 2, ProviderID: "i-42", CloudName: "ab12-web",
			Properties: []plan.PropChange{{
				Path: "image", Old: "debian-12", New: "debian-13", ForcesReplace: true,
				ReplaceReason: "an image cannot change", Unknown: true,
			}},
			Dependencies: []string{"net"}, Reason: "drift", PriorType: "Vm",
			Outputs:  map[string]any{"publicIp": "192.0.2.1"},
			ImportID: "i-42",
			Imported: &plan.Object{
				ID: "i-42", CloudName: "ab12-web", Properties: map[string]any{"image": "debian-12"},
				Outputs: map[string]any{"publicIp": "192.0.2.1"}, SchemaVersion: 1, Private: []byte("p"), Sensitive: []string{"userData"},
			},
			MovedFrom: "old-web", PriorCloudName: "ab12-old-web", ReplaceOrder: plan.CreateBeforeDestroy,
			Planned: &plan.Planned{
				PriorState: []byte("prior"), PriorPrivate: []byte("prior-private"), State: []byte("state"), Private: []byte("private"),
				SchemaVersion: 1, ConfigKnown: true, Sensitive: []string{"userData"}, Values: map[string]any{"image": "debian-13"},
			},
			Sensitive:       []string{"userData"},
			SensitiveWithin: map[string][]string{"userData": {".password"}},
			SecretParts:     map[string][]string{"userData": {".password"}},
			References:      map[string]string{"image": "ami.id"},
			NotRead:         true,
			LastRead:        &lastRead,
			Basis:           &state.Basis{Config: "c", Provider: "p", Version: "1.0.0", ReadAt: lastRead},
			PriorDigests:    map[string]string{"image": "d1"},
		}},
		Levels:  map[string]int{"net": 1, "web": 2},
		Lineage: "l1", Serial: 7, Prefix: "ab12", StateExists: true,
		Backend:          "local /work/infra/.kyku/state.prod.json",
		Destroy:          true,
		Targets:          []string{"web"},
		Replace:          []string{"web"},
		OwnTypes:         map[string]string{"west_s3_bucket": "aws_s3_bucket"},
		OutputChanges:    []plan.OutputChange{{Name: "ip", Action: plan.Update, Old: "192.0.2.1", New: "192.0.2.2", Unknown: true}},
		UnchangedOutputs: []plan.OutputChange{{Name: "name", Action: plan.NoOp, Old: "web", New: "web"}},
		Config:           cfg,
		WriteOnly:        map[string][]string{"web": {"userData"}},
		Data:             map[string]map[string]any{"ami": {"id": "ami-1"}},
		Secrets:          []string{"hunter2"},
		Redacted:         true,
		Reads:            &plan.Reads{Refresh: "changed", Read: 1, Objects: 2},
	}
	p.ConfigHash, p.VariablesHash, p.SecretsHash = cfg.Hash(), cfg.VariablesHash(), cfg.SecretsHash()
	p.Count()
	return p
}

// TestDigestsCoverEveryField changes each field of a plan in turn, down
// to the fields of its changes and of what they hold: the changes digest
// and the plan file's digest change with it, or the field is in the
// digest's list of what it leaves out (and then the digest does not
// change).
func TestDigestsCoverEveryField(t *testing.T) {
	for _, d := range []struct {
		name     string
		digest   func(*plan.Plan) (string, error)
		leaveOut map[string]string
	}{
		{"ChangesDigest", plan.ChangesDigest, changesDigestLeavesOut},
		{"FileDigest", plan.FileDigest, fileDigestLeavesOut},
	} {
		t.Run(d.name, func(t *testing.T) {
			sum := func(p *plan.Plan) string {
				t.Helper()
				s, err := d.digest(p)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			base := sum(everyField())
			var paths []string
			walkFields(t, reflect.ValueOf(everyField()).Elem(), "", func(path string, _ reflect.Value) { paths = append(paths, path) })
			seen := map[string]bool{} // the lists' paths that name a field
			for _, path := range paths {
				p := everyField()
				walkFields(t, reflect.ValueOf(p).Elem(), "", func(at string, v reflect.Value) {
					if at == path {
						changeField(t, path, v)
					}
				})
				changed := sum(p) != base
				reason, left := leftOut(d.leaveOut, path, seen)
				switch {
				case !changed && !left:
					t.Errorf("%s: changing it leaves the %s as it was: put it in the digest, or in the list of what it leaves out with the reason", path, d.name)
				case changed && left:
					t.Errorf("%s: the %s changes with it, yet its list says it leaves it out (%q): take it off the list", path, d.name, reason)
				}
			}
			for path := range d.leaveOut {
				if !seen[path] {
					t.Errorf("%s: listed as left out of the %s, but no field has that path", path, d.name)
				}
			}
		})
	}
}

// leftOut is the reason list gives for leaving out the field at path or
// a struct holding it, and whether it gives one; seen records the path
// that answered.
func leftOut(list map[string]string, path string, seen map[string]bool) (string, bool) {
	for p := path; p != ""; {
		if reason, ok := list[p]; ok {
			seen[p] = true
			return reason, true
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return "", false
}

// TestChangesDigestMasksSensitiveValues: a sensitive property change
// counts by its path, not its values, so the digest shown in a comment
// says nothing about a secret; the same values not sensitive count.
func TestChangesDigestMasksSensitiveValues(t *testing.T) {
	digest := func(sensitive bool, newValue string) string {
		t.Helper()
		p := everyField()
		pc := &p.Changes[0].Properties[0]
		pc.Sensitive, pc.New = sensitive, newValue
		d, err := plan.ChangesDigest(p)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if digest(true, "hunter2") != digest(true, "hunter3") {
		t.Error("the changes digest depends on a sensitive property's value")
	}
	if digest(false, "hunter2") == digest(false, "hunter3") {
		t.Error("the changes digest ignores a property's value")
	}
}

// planPkg is the package whose structs walkFields walks into.
var planPkg = reflect.TypeFor[plan.Plan]().PkgPath()

// walkFields calls visit with every field under v, a struct of package
// plan, by its path: it walks into the package's structs, through
// pointers to them and into the first element of slices of them;
// everything else (time.Time, *config.Config, maps, values) is one field.
// A pointer or slice to walk into that is nil or empty in the plan fails
// the test, as its fields would go unchecked.
func walkFields(t *testing.T, v reflect.Value, path string, visit func(path string, v reflect.Value)) {
	t.Helper()
	ty := v.Type()
	for i := range ty.NumField() {
		f := ty.Field(i)
		p := f.Name
		if path != "" {
			p = path + "." + f.Name
		}
		if !f.IsExported() {
			t.Fatalf("%s: unexported, where neither digest's JSON sees it: say here what covers it", p)
		}
		fv := v.Field(i)
		switch {
		case walkedInto(f.Type):
			walkFields(t, fv, p, visit)
		case f.Type.Kind() == reflect.Pointer && walkedInto(f.Type.Elem()):
			if fv.IsNil() {
				t.Fatalf("%s is nil in everyField's plan: set it, so that its fields are checked", p)
			}
			walkFields(t, fv.Elem(), p, visit)
		case f.Type.Kind() == reflect.Slice && walkedInto(f.Type.Elem()):
			if fv.Len() == 0 {
				t.Fatalf("%s is empty in everyField's plan: give it an element, so that its fields are checked", p)
			}
			walkFields(t, fv.Index(0), p+"[0]", visit)
		default:
			visit(p, fv)
		}
	}
}

// walkedInto reports whether walkFields walks into a value of type ty.
func walkedInto(ty reflect.Type) bool { return ty.Kind() == reflect.Struct && ty.PkgPath() == planPkg }

// changeField sets v, the field at path, to another value of its type.
func changeField(t *testing.T, path string, v reflect.Value) {
	t.Helper()
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.String:
		v.SetString(v.String() + "-changed")
	case reflect.Interface:
		v.Set(reflect.ValueOf("changed"))
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes(append(slices.Clone(v.Bytes()), '!'))
			return
		}
		elem := reflect.New(v.Type().Elem()).Elem()
		if elem.Kind() == reflect.String {
			elem.SetString("changed")
		}
		v.Set(reflect.Append(v, elem))
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for it := v.MapRange(); it.Next(); {
			m.SetMapIndex(it.Key(), it.Value())
		}
		m.SetMapIndex(reflect.ValueOf("changed").Convert(v.Type().Key()), reflect.New(v.Type().Elem()).Elem())
		v.Set(m)
	case reflect.Pointer:
		v.Set(reflect.Zero(v.Type()))
	case reflect.Struct:
		tm, ok := v.Interface().(time.Time)
		if !ok {
			t.Fatalf("%s: no way to change a %s: add one to change", path, v.Type())
		}
		v.Set(reflect.ValueOf(tm.Add(time.Hour)))
	default:
		t.Fatalf("%s: no way to change a %s: add one to change", path, v.Type())
	}
}
