package tfcorpus

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// basePlan is a plan both sides agree on; each case changes one side.
func basePlan() Plan {
	return Plan{
		Changes: []Change{
			{Address: "module.net.terraform_data.subnet[\"a\"]", Actions: []string{"create"},
				After: map[string]any{"id": Unknown, "input": map[string]any{"cidr": "10.0.1.0/24", "size": Number("3")}}},
			{Address: "random_password.db", Actions: []string{"delete", "create"},
				After:     map[string]any{"length": Number("20"), "result": "p4ss", "id": Unknown},
				Sensitive: []string{".result"}},
		},
		Outputs: map[string]Output{
			"cidr":   {Action: "create", Value: "10.0.1.0/24"},
			"secret": {Action: "create", Value: "p4ss", Sensitive: true},
		},
	}
}

func TestCompare(t *testing.T) {
	subnet := "module.net.terraform_data.subnet[\"a\"]"
	cases := []struct {
		name string
		edit func(want, got *Plan)
		want []string
	}{
		{"same", func(*Plan, *Plan) {}, nil},
		{"wrong action", func(_, got *Plan) { got.Changes[1].Actions = []string{"update"} },
			[]string{"random_password.db: actions: OpenTofu [delete create], Kyku [update]"}},
		{"replace order", func(_, got *Plan) { got.Changes[1].Actions = []string{"create", "delete"} },
			[]string{"random_password.db: actions: OpenTofu [delete create], Kyku [create delete]"}},
		{"wrong value", func(_, got *Plan) {
			got.Changes[0].After = map[string]any{"id": Unknown, "input": map[string]any{"cidr": "10.0.2.0/24", "size": Number("3")}}
		}, []string{subnet + `: input.cidr: OpenTofu "10.0.1.0/24", Kyku "10.0.2.0/24"`}},
		{"number of another type", func(_, got *Plan) {
			got.Changes[0].After.(map[string]any)["input"].(map[string]any)["size"] = "3"
		}, []string{subnet + `: input.size: OpenTofu 3, Kyku "3"`}},
		{"known where OpenTofu has unknown", func(_, got *Plan) {
			got.Changes[0].After.(map[string]any)["id"] = "subnet-1"
		}, []string{subnet + `: id: OpenTofu (known after apply), Kyku "subnet-1"`}},
		{"unknown where OpenTofu knows", func(_, got *Plan) {
			got.Changes[0].After.(map[string]any)["input"].(map[string]any)["cidr"] = Unknown
		}, []string{subnet + `: input.cidr: OpenTofu "10.0.1.0/24", Kyku (known after apply)`}},
		{"unknown marker text is not unknown", func(_, got *Plan) {
			got.Changes[0].After.(map[string]any)["id"] = "(known after apply)"
		}, []string{subnet + `: id: OpenTofu (known after apply), Kyku "(known after apply)"`}},
		{"attribute missing", func(_, got *Plan) {
			delete(got.Changes[0].After.(map[string]any), "input")
		}, []string{subnet + `: input: OpenTofu {"cidr": "10.0.1.0/24", "size": 3}, Kyku null`}},
		{"attribute extra", func(_, got *Plan) {
			got.Changes[0].After.(map[string]any)["extra"] = true
		}, []string{subnet + `: extra: OpenTofu null, Kyku true`}},
		{"list length", func(want, got *Plan) {
			want.Changes[0].After.(map[string]any)["zones"] = []any{"a", "b"}
			got.Changes[0].After.(map[string]any)["zones"] = []any{"a"}
		}, []string{subnet + `: zones: OpenTofu ["a", "b"], Kyku ["a"]`}},
		{"missing resource", func(_, got *Plan) { got.Changes = got.Changes[1:] },
			[]string{subnet + ": missing: OpenTofu plans [create], Kyku plans nothing"}},
		{"extra resource", func(_, got *Plan) {
			got.Changes = append(got.Changes, Change{Address: "terraform_data.x", Actions: []string{"create"}})
		}, []string{"terraform_data.x: extra: Kyku plans [create], OpenTofu plans nothing"}},
		{"deposed object missing", func(want, _ *Plan) {
			want.Changes = append(want.Changes, Change{Address: "random_password.db", Deposed: true, Actions: []string{"delete"}})
		}, []string{"random_password.db (deposed): missing: OpenTofu plans [delete], Kyku plans nothing"}},
		{"sensitive only in OpenTofu", func(_, got *Plan) {
			got.Changes[1].Sensitive = nil
		}, []string{"random_password.db: result: OpenTofu marks it sensitive, Kyku does not"}},
		{"sensitive only in Kyku", func(_, got *Plan) {
			got.Changes[0].Sensitive = []string{".input"}
		}, []string{subnet + ": input: Kyku marks it sensitive, OpenTofu does not"}},
		{"masked where both say sensitive", func(_, got *Plan) {
			got.Changes[1].After.(map[string]any)["result"] = Masked
		}, nil},
		{"masked under a sensitive parent", func(want, got *Plan) {
			want.Changes[0].Sensitive = []string{".input"}
			got.Changes[0].Sensitive = []string{".input"}
			got.Changes[0].After.(map[string]any)["input"].(map[string]any)["cidr"] = Masked
		}, nil},
		{"masked where OpenTofu shows the value", func(_, got *Plan) {
			got.Changes[0].After.(map[string]any)["input"].(map[string]any)["cidr"] = Masked
		}, []string{subnet + `: input.cidr: OpenTofu "10.0.1.0/24", Kyku (sensitive)`}},
		{"a sensitive value in clear must still agree", func(_, got *Plan) {
			got.Changes[1].After.(map[string]any)["result"] = "other"
		}, []string{`random_password.db: result: OpenTofu "p4ss", Kyku "other"`}},
		{"previous address", func(want, _ *Plan) { want.Changes[1].PreviousAddress = "random_password.old" },
			[]string{`random_password.db: previous address: OpenTofu "random_password.old", Kyku ""`}},
		{"import ID", func(_, got *Plan) { got.Changes[1].Importing = "x" },
			[]string{`random_password.db: import ID: OpenTofu "", Kyku "x"`}},
		{"output value", func(_, got *Plan) { got.Outputs["cidr"] = Output{Action: "create", Value: Unknown} },
			[]string{`output.cidr: (value): OpenTofu "10.0.1.0/24", Kyku (known after apply)`}},
		{"output masked when sensitive", func(_, got *Plan) { got.Outputs["secret"] = Output{Action: "create", Value: Masked, Sensitive: true} },
			nil},
		{"output sensitivity", func(_, got *Plan) { got.Outputs["secret"] = Output{Action: "create", Value: Masked} },
			[]string{"output.secret: sensitive: OpenTofu true, Kyku false", `output.secret: (value): OpenTofu "p4ss", Kyku (sensitive)`}},
		{"output action", func(_, got *Plan) { got.Outputs["cidr"] = Output{Action: "update", Value: "10.0.1.0/24"} },
			[]string{"output.cidr: action: OpenTofu create, Kyku update"}},
		{"output missing", func(_, got *Plan) { delete(got.Outputs, "cidr") },
			[]string{`output.cidr: missing: OpenTofu plans create "10.0.1.0/24", Kyku plans nothing`}},
		{"output extra", func(_, got *Plan) { got.Outputs["more"] = Output{Action: "create", Value: Number("1")} },
			[]string{"output.more: extra: Kyku plans create 1, OpenTofu plans nothing"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, got := basePlan(), basePlan()
			tc.edit(&want, &got)
			if diff := cmp.Diff(tc.want, Compare(want, got)); diff != "" {
				t.Errorf("Compare (-want +got):\n%s", diff)
			}
		})
	}
}
