package builtin_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/builtin"
	"github.com/kyku/action/internal/value"
)

// ids is a deterministic ID source: 00000000-0000-0000-0000-00000000000N.
func ids() func() (string, error) {
	var n atomic.Int64
	return func() (string, error) {
		return fmt.Sprintf("00000000-0000-0000-0000-%012d", n.Add(1)), nil
	}
}

const unknown = value.Unknown

// stored is what state keeps of an applied terraform_data.
func stored(attrs map[string]any) *provider.Stored { return &provider.Stored{Attributes: attrs} }

// TestPlanChange holds terraform_data's plan to OpenTofu's
// PlanResourceChange: output unknown when input changes (or on create),
// a replace when triggers_replace changes, unknown input flowing to
// output, nothing else.
func TestPlanChange(t *testing.T) {
	applied := map[string]any{"id": "u-1", "input": "a", "output": "a", "triggers_replace": []any{"v1"}}
	cases := []struct {
		name        string
		req         provider.ChangeRequest
		want        map[string]any
		wantReplace []provider.Forced
	}{
		{"create with input", provider.ChangeRequest{Resource: provider.Resource{Properties: map[string]any{"input": "a"}}},
			map[string]any{"id": unknown, "input": "a", "output": unknown}, nil},
		{"create without input: output null", provider.ChangeRequest{Resource: provider.Resource{Properties: map[string]any{}}},
			map[string]any{"id": unknown}, nil},
		{"create with unknown input", provider.ChangeRequest{Resource: provider.Resource{Properties: map[string]any{"input": map[string]any{"x": unknown}}}},
			map[string]any{"id": unknown, "input": map[string]any{"x": unknown}, "output": unknown}, nil},
		{"nothing changed: the object as it is", provider.ChangeRequest{ID: "u-1", Stored: stored(applied),
			Resource: provider.Resource{Properties: map[string]any{"input": "a", "triggers_replace": []any{"v1"}}}},
			applied, nil},
		{"input changed: output unknown, id kept", provider.ChangeRequest{ID: "u-1", Stored: stored(applied),
			Resource: provider.Resource{Properties: map[string]any{"input": "b", "triggers_replace": []any{"v1"}}}},
			map[string]any{"id": "u-1", "input": "b", "output": unknown, "triggers_replace": []any{"v1"}}, nil},
		{"input unknown: output unknown", provider.ChangeRequest{ID: "u-1", Stored: stored(applied),
			Resource: provider.Resource{Properties: map[string]any{"input": unknown, "triggers_replace": []any{"v1"}}}},
			map[string]any{"id": "u-1", "input": unknown, "output": unknown, "triggers_replace": []any{"v1"}}, nil},
		{"input removed: output unknown", provider.ChangeRequest{ID: "u-1", Stored: stored(applied),
			Resource: provider.Resource{Properties: map[string]any{"triggers_replace": []any{"v1"}}}},
			map[string]any{"id": "u-1", "output": unknown, "triggers_replace": []any{"v1"}}, nil},
		{"triggers_replace changed: replaced, planned as a create", provider.ChangeRequest{ID: "u-1", Stored: stored(applied),
			Resource: provider.Resource{Properties: map[string]any{"input": "a", "triggers_replace": []any{"v2"}}}},
			map[string]any{"id": unknown, "input": "a", "output": unknown, "triggers_replace": []any{"v2"}},
			[]provider.Forced{{Path: "triggers_replace"}}},
		{"triggers_replace unknown: replaced", provider.ChangeRequest{ID: "u-1", Stored: stored(applied),
			Resource: provider.Resource{Properties: map[string]any{"input": "a", "triggers_replace": unknown}}},
			map[string]any{"id": unknown, "input": "a", "output": unknown, "triggers_replace": unknown},
			[]provider.Forced{{Path: "triggers_replace"}}},
		{"ignore_changes on input: the object's input stands", provider.ChangeRequest{ID: "u-1", Stored: stored(applied), IgnoreChanges: []string{"input"},
			Resource: provider.Resource{Properties: map[string]any{"input": "b", "triggers_replace": []any{"v1"}}}},
			applied, nil},
		{"replace asked for: a create", provider.ChangeRequest{ID: "u-1", Stored: stored(applied), Replace: true,
			Resource: provider.Resource{Properties: map[string]any{"input": "a", "triggers_replace": []any{"v1"}}}},
			map[string]any{"id": unknown, "input": "a", "output": unknown, "triggers_replace": []any{"v1"}}, nil},
		{"an input shaped like the state form is kept as it is", provider.ChangeRequest{ID: "u-1",
			Stored:   stored(map[string]any{"id": "u-1", "input": map[string]any{"type": "x", "value": "a"}, "output": map[string]any{"type": "x", "value": "a"}}),
			Resource: provider.Resource{Properties: map[string]any{"input": map[string]any{"type": "x", "value": "a"}}}},
			map[string]any{"id": "u-1", "input": map[string]any{"type": "x", "value": "a"}, "output": map[string]any{"type": "x", "value": "a"}}, nil},
	}
	p := builtin.New(ids())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Type, tc.req.Name = "terraform_data", "d"
			got, err := p.PlanChange(t.Context(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if got.Planned == nil {
				t.Fatalf("no plan: %+v", got)
			}
			if diff := cmp.Diff(tc.want, got.Planned.Values); diff != "" {
				t.Errorf("planned values (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantReplace, got.Replace); diff != "" {
				t.Errorf("forced replaces (-want +got):\n%s", diff)
			}
			if want := !value.HasUnknown(tc.req.Properties); got.Planned.ConfigKnown != want {
				t.Errorf("ConfigKnown = %v, want %v", got.Planned.ConfigKnown, want)
			}
		})
	}
}

// TestApply: output is input once applied, id a new UUID from the
// source, kept by an update; a plan made with unknown input is made
// again with the input known, and one that contradicts the reviewed
// plan is refused.
func TestApply(t *testing.T) {
	p := builtin.New(ids())
	ctx := t.Context()
	plan := func(req provider.ChangeRequest) *provider.Planned {
		t.Helper()
		req.Type, req.Name = "terraform_data", "d"
		got, err := p.PlanChange(ctx, req)
		if err != nil || got.Planned == nil {
			t.Fatalf("plan: %v %+v", err, got)
		}
		return got.Planned
	}
	props := map[string]any{"input": map[string]any{"a": []any{1.0, "x"}}}
	created, err := p.Create(ctx, provider.Resource{Type: "terraform_data", Name: "d", Properties: props,
		Planned: plan(provider.ChangeRequest{Resource: provider.Resource{Properties: props}})})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"id": "00000000-0000-0000-0000-000000000001", "input": props["input"], "output": props["input"]}
	if diff := cmp.Diff(want, created.Outputs); diff != "" {
		t.Errorf("created (-want +got):\n%s", diff)
	}
	if created.ID != want["id"] || created.Stored == nil || !value.Equal(created.Stored.Attributes, want) {
		t.Errorf("created object: ID %q, stored %+v", created.ID, created.Stored)
	}

	// An update with an input unknown at plan: planned again at apply.
	planned := plan(provider.ChangeRequest{ID: created.ID, Stored: created.Stored, Resource: provider.Resource{Properties: map[string]any{"input": unknown}}})
	updated, err := p.Update(ctx, created.ID, provider.Resource{Type: "terraform_data", Name: "d",
		Properties: map[string]any{"input": "now known"}, Planned: planned, Stored: created.Stored})
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]any{"id": "00000000-0000-0000-0000-000000000001", "input": "now known", "output": "now known"}
	if diff := cmp.Diff(want, updated.Outputs); diff != "" {
		t.Errorf("updated (-want +got):\n%s", diff)
	}

	// A reviewed plan knew triggers_replace; apply finds another value.
	planned = plan(provider.ChangeRequest{ID: created.ID, Stored: updated.Stored,
		Resource: provider.Resource{Properties: map[string]any{"input": unknown, "triggers_replace": "now known"}}})
	if _, err := p.Create(ctx, provider.Resource{Type: "terraform_data", Name: "d",
		Properties: map[string]any{"input": "x", "triggers_replace": "other"}, Planned: planned}); err == nil {
		t.Error("apply of a plan contradicting the reviewed one: no error")
	}
}

// TestImportAndRead: an import is OpenTofu's, an object with only the
// ID given; reading an object gives it back as state keeps it.
func TestImportAndRead(t *testing.T) {
	p := builtin.New(ids())
	got, err := p.Import(t.Context(), "terraform_data", "my-id")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"id": "my-id"}, got.Outputs); diff != "" || got.ID != "my-id" {
		t.Errorf("imported %q (-want +got):\n%s", got.ID, diff)
	}
	// Its plan against a configuration sets input: an update, output unknown.
	pc, err := p.PlanChange(t.Context(), provider.ChangeRequest{ID: "my-id", Stored: got.Stored,
		Resource: provider.Resource{Type: "terraform_data", Name: "d", Properties: map[string]any{"input": "a"}}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"id": "my-id", "input": "a", "output": unknown}, pc.Planned.Values); diff != "" || len(pc.Replace) > 0 {
		t.Errorf("plan of the import, replace %v (-want +got):\n%s", pc.Replace, diff)
	}
	read, err := p.ReadStored(t.Context(), "terraform_data", "u-1", provider.Stored{Attributes: map[string]any{
		"id": "u-1", "input": 3.0, "output": 3.0, "triggers_replace": nil}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"id": "u-1", "input": 3.0, "output": 3.0}, read.Outputs); diff != "" {
		t.Errorf("read (-want +got):\n%s", diff)
	}
	if _, err := p.Import(t.Context(), "terraform_other", "x"); err == nil {
		t.Error("import of a type the built-in provider does not have: no error")
	}
}

// TestValidateConfigs refuses what OpenTofu refuses of terraform_data's
// configuration.
func TestValidateConfigs(t *testing.T) {
	p := builtin.New(ids())
	got, err := p.ValidateConfigs(t.Context(), []provider.Desired{
		{Name: "ok", Type: "terraform_data", Properties: map[string]any{"input": "a", "triggers_replace": 1.0}},
		{Name: "ro", Type: "terraform_data", Properties: map[string]any{"output": "a", "id": "b"}},
		{Name: "extra", Type: "terraform_data", Properties: map[string]any{"inputs": "a"}},
		{Name: "other", Type: "terraform_other"},
		{Name: "state", Type: "terraform_other", Data: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []provider.Refusal{
		{Resource: "ro", Path: "id", Reason: `"id" attribute is read-only`, Summary: `"id" attribute is read-only`},
		{Resource: "ro", Path: "output", Reason: `"output" attribute is read-only`, Summary: `"output" attribute is read-only`},
		{Resource: "extra", Path: "inputs", Reason: `an argument named "inputs" is not expected here`,
			Summary: "Unsupported argument", Detail: `An argument named "inputs" is not expected here. Did you mean "input"?`},
		{Resource: "other", Reason: `OpenTofu's built-in provider has no resource type "terraform_other"`},
		{Resource: "state", Reason: `OpenTofu's built-in provider has no data source "terraform_other"`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("refusals (-want +got):\n%s", diff)
	}
}
