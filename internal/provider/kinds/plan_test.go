package kinds_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/kinds"
)

// TestPlannerPlansKykusTypes: the shared planner compares the object with
// the configuration as Kyku's schema does, replaces what the cloud's
// rules (else the schema) say cannot change in place, and asks the
// cloud's check about creates and changes only, with what changed and
// the object as last known.
func TestPlannerPlansKykusTypes(t *testing.T) {
	rules := func(typ string) provider.Rules {
		return provider.Rules{"size": provider.Replaces("sizes are fixed here"), "image": provider.InPlace("rebuilt")}
	}
	vm := func(props map[string]any) provider.Resource {
		return provider.Resource{Name: "web", Type: "Vm", Properties: props}
	}
	for _, tc := range []struct {
		name  string
		rules func(string) provider.Rules
		req   provider.ChangeRequest
		want  provider.ChangePlan
		asked []kinds.Change // what the check was asked
	}{{
		name: "a create is asked about every property",
		req:  provider.ChangeRequest{Resource: vm(map[string]any{"size": "small", "image": "debian-12"})},
		want: provider.ChangePlan{Planned: &provider.Planned{Values: map[string]any{"size": "small", "image": "debian-12"}}},
		asked: []kinds.Change{{
			ChangeRequest: provider.ChangeRequest{Resource: vm(map[string]any{"size": "small", "image": "debian-12"})},
			Changed:       []string{"image", "size"},
		}},
	}, {
		name:  "a rule replaces, with its reason",
		rules: rules,
		req:   provider.ChangeRequest{Resource: vm(map[string]any{"size": "large", "image": "debian-12"}), ID: "1", Prior: map[string]any{"size": "small", "image": "debian-12"}},
		want: provider.ChangePlan{
			Planned: &provider.Planned{PriorValues: map[string]any{"size": "small", "image": "debian-12"}, Values: map[string]any{"size": "large", "image": "debian-12"}},
			Replace: []provider.Forced{{Path: "size", Reason: "sizes are fixed here"}},
		},
		asked: []kinds.Change{{
			ChangeRequest: provider.ChangeRequest{Resource: vm(map[string]any{"size": "large", "image": "debian-12"}), ID: "1", Prior: map[string]any{"size": "small", "image": "debian-12"}},
			Changed:       []string{"size"},
		}},
	}, {
		name:  "a rule keeps a change in place the schema would replace",
		rules: rules,
		req:   provider.ChangeRequest{Resource: vm(map[string]any{"image": "debian-13"}), ID: "1", Prior: map[string]any{"image": "debian-12"}},
		want:  provider.ChangePlan{Planned: &provider.Planned{PriorValues: map[string]any{"image": "debian-12"}, Values: map[string]any{"image": "debian-13"}}},
		asked: []kinds.Change{{
			ChangeRequest: provider.ChangeRequest{Resource: vm(map[string]any{"image": "debian-13"}), ID: "1", Prior: map[string]any{"image": "debian-12"}},
			Changed:       []string{"image"},
		}},
	}, {
		name: "without rules, the schema's immutable replaces, without a reason",
		req:  provider.ChangeRequest{Resource: vm(map[string]any{"image": "debian-13"}), ID: "1", Prior: map[string]any{"image": "debian-12"}},
		want: provider.ChangePlan{
			Planned: &provider.Planned{PriorValues: map[string]any{"image": "debian-12"}, Values: map[string]any{"image": "debian-13"}},
			Replace: []provider.Forced{{Path: "image"}},
		},
		asked: []kinds.Change{{
			ChangeRequest: provider.ChangeRequest{Resource: vm(map[string]any{"image": "debian-13"}), ID: "1", Prior: map[string]any{"image": "debian-12"}},
			Changed:       []string{"image"},
		}},
	}, {
		name: "what the cloud cannot report is the last applied value, and the check sees it",
		req: provider.ChangeRequest{Resource: vm(map[string]any{"image": "debian-12", "userData": "#!/bin/sh", "size": "medium"}), ID: "1",
			Prior: map[string]any{"image": "debian-12"}, Applied: map[string]any{"image": "debian-11", "userData": "#!/bin/sh"}},
		want: provider.ChangePlan{Planned: &provider.Planned{
			PriorValues: map[string]any{"image": "debian-12", "userData": "#!/bin/sh"}, Values: map[string]any{"image": "debian-12", "userData": "#!/bin/sh", "size": "medium"}}},
		asked: []kinds.Change{{
			ChangeRequest: provider.ChangeRequest{Resource: vm(map[string]any{"image": "debian-12", "userData": "#!/bin/sh", "size": "medium"}), ID: "1",
				Prior: map[string]any{"image": "debian-12", "userData": "#!/bin/sh"}, Applied: map[string]any{"image": "debian-11", "userData": "#!/bin/sh"}},
			Changed: []string{"size"},
		}},
	}, {
		name: "ignored and reordered set properties are no change",
		req: provider.ChangeRequest{Resource: vm(map[string]any{"size": "large", "securityGroups": []any{"b", "a"}}), ID: "1",
			Prior: map[string]any{"size": "small", "securityGroups": []any{"a", "b"}}, IgnoreChanges: []string{"size"}},
		want: provider.ChangePlan{Planned: &provider.Planned{
			PriorValues: map[string]any{"securityGroups": []any{"a", "b"}}, Values: map[string]any{"securityGroups": []any{"a", "b"}}}},
	}, {
		name: "a replace asked for is asked about though nothing changed",
		req:  provider.ChangeRequest{Resource: vm(map[string]any{"image": "debian-12"}), ID: "1", Prior: map[string]any{"image": "debian-12"}, Replace: true},
		want: provider.ChangePlan{Planned: &provider.Planned{PriorValues: map[string]any{"image": "debian-12"}, Values: map[string]any{"image": "debian-12"}}},
		asked: []kinds.Change{{
			ChangeRequest: provider.ChangeRequest{Resource: vm(map[string]any{"image": "debian-12"}), ID: "1", Prior: map[string]any{"image": "debian-12"}, Replace: true},
		}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []kinds.Change
			check := func(_ context.Context, c kinds.Change) (provider.ChangePlan, error) {
				asked = append(asked, c)
				return provider.ChangePlan{}, nil
			}
			got, err := kinds.Planner{Rules: tc.rules, Check: check}.PlanChange(t.Context(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("plan (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.asked, asked); d != "" {
				t.Errorf("check asked (-want +got):\n%s", d)
			}
		})
	}
}

// TestPlannerTakesTheChecksWord: the check's replaces follow the rules',
// its refusals and create-before-destroy are the answer's, a create takes
// no replace, and a failure to ask is the planner's error.
func TestPlannerTakesTheChecksWord(t *testing.T) {
	answer := provider.ChangePlan{
		Replace:             []provider.Forced{{Path: "size", Reason: "another architecture"}},
		Refusals:            []provider.Refusal{{Path: "image", Reason: "not sold here"}},
		CreateBeforeDestroy: true,
	}
	pl := kinds.Planner{
		Rules: func(string) provider.Rules { return provider.Rules{"image": provider.Replaces("images are fixed")} },
		Check: func(context.Context, kinds.Change) (provider.ChangePlan, error) { return answer, nil },
	}
	req := provider.ChangeRequest{Resource: provider.Resource{Type: "Vm", Properties: map[string]any{"size": "large", "image": "b"}}, ID: "1",
		Prior: map[string]any{"size": "small", "image": "a"}}
	got, err := pl.PlanChange(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := []provider.Forced{{Path: "image", Reason: "images are fixed"}, {Path: "size", Reason: "another architecture"}}
	if d := cmp.Diff(want, got.Replace); d != "" || !got.CreateBeforeDestroy || len(got.Refusals) != 1 {
		t.Errorf("answer %+v; replaces (-want +got):\n%s", got, d)
	}
	req.ID, req.Prior = "", nil
	if got, err := pl.PlanChange(t.Context(), req); err != nil || len(got.Replace) != 0 || len(got.Refusals) != 1 {
		t.Errorf("a create: %+v, %v; want the refusal and no replace", got, err)
	}
	broken := errors.New("the catalogue is down")
	pl.Check = func(context.Context, kinds.Change) (provider.ChangePlan, error) { return provider.ChangePlan{}, broken }
	if _, err := pl.PlanChange(t.Context(), provider.ChangeRequest{Resource: provider.Resource{Type: "Vm"}, ID: "1", Prior: map[string]any{"size": "small"}}); !errors.Is(err, broken) {
		t.Errorf("a failed check: %v", err)
	}
	if _, err := pl.PlanChange(t.Context(), provider.ChangeRequest{Resource: provider.Resource{Type: "Nope"}}); err == nil {
		t.Error("a type Kyku does not have was planned")
	}
}
