package tfcorpus_test

// knownDifferences are the corpus entries Kyku does not plan as OpenTofu
// does yet: by entry, why, and every difference the comparison finds,
// exactly (checkKnown). The test fails on any other difference, and on a
// listed entry that matches, so the list only shrinks.
//
// Rewritten by: go test ./internal/tfcorpus -run TestCorpusMatchesOpenTofu
// -update-known (with KYKU_TFCORPUS_MIRROR set, or the entries needing the
// hashicorp providers are kept as they are); each why is written by hand.
var knownDifferences = map[string]known{
	"check-blocks": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"conditionals": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"count": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"depends-on": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"error-count-unknown": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"missing error: main.tf:18: Invalid count argument",
			"extra error: :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none)",
		},
	},
	"error-for-each-unknown": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"missing error: main.tf:16: Invalid for_each argument",
			"missing error: main.tf:27: Invalid for_each argument",
			"extra error: :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none)",
		},
	},
	"error-precondition": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"missing error: main.tf:14: Resource precondition failed",
			"missing error: main.tf:24: Module output value precondition failed",
			"extra error: :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none)",
		},
	},
	"estate-cert-validation": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"estate-iam-policy": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"estate-module-foreach": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"estate-userdata": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"estate-vpc": {
		why: "a reference whose index is not a literal (fwtest_item.public[each.key].id, fwtest_item.nat[each.key].id) or a for over every instance (sdktest_item.public.tags) is read by tfconfig as a read of every attribute of every instance (value.AllAttrs), the sensitive secret among them: Kyku masks the value OpenTofu shows as known after apply",
		diffs: []string{
			"fwtest_item.nat[\"eu-central-1a\"]: value: Kyku marks it sensitive, OpenTofu does not",
			"fwtest_item.nat[\"eu-central-1a\"]: value: OpenTofu (known after apply), Kyku (sensitive)",
			"fwtest_item.nat[\"eu-central-1b\"]: value: Kyku marks it sensitive, OpenTofu does not",
			"fwtest_item.nat[\"eu-central-1b\"]: value: OpenTofu (known after apply), Kyku (sensitive)",
			"fwtest_item.nat[\"eu-central-1c\"]: value: Kyku marks it sensitive, OpenTofu does not",
			"fwtest_item.nat[\"eu-central-1c\"]: value: OpenTofu (known after apply), Kyku (sensitive)",
			"sdktest_item.private[\"eu-central-1a\"]: value: Kyku marks it sensitive, OpenTofu does not",
			"sdktest_item.private[\"eu-central-1a\"]: value: OpenTofu (known after apply), Kyku (sensitive)",
			"sdktest_item.private[\"eu-central-1b\"]: value: Kyku marks it sensitive, OpenTofu does not",
			"sdktest_item.private[\"eu-central-1b\"]: value: OpenTofu (known after apply), Kyku (sensitive)",
			"sdktest_item.private[\"eu-central-1c\"]: value: Kyku marks it sensitive, OpenTofu does not",
			"sdktest_item.private[\"eu-central-1c\"]: value: OpenTofu (known after apply), Kyku (sensitive)",
			"sdktest_item.public: tags: Kyku marks it sensitive, OpenTofu does not",
			"sdktest_item.public: tags: OpenTofu (known after apply), Kyku (sensitive)",
		},
	},
	"for-each-locals": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"for-each-map": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"for-each-resource-attr": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"for-each-state-attr": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"for-expressions": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"functions-datetime": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"functions-filesystem": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"functions-hash-crypto": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"functions-impure": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"functions-numeric": {
		why: "Kyku's values hold numbers as float64: 2^53+1 and 1/3 lose the precision OpenTofu's arbitrary-precision numbers keep",
		diffs: []string{
			"output.arithmetic: big: OpenTofu 9007199254740993, Kyku 9007199254740992",
			"output.arithmetic: fraction: OpenTofu 0.33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333335, Kyku 0.3333333333333333",
		},
	},
	"functions-typeconv": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"lifecycle-conditions": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"lifecycle-create-before-destroy": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"lifecycle-ignore-changes": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"lifecycle-replace-triggered-by": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"locals": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"modules-count-foreach": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"modules-local": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"moved": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"override-files": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"remote-state": {
		why: "uses terraform_data and terraform_remote_state, types of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"removed": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"splats": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"state-changes": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"templatefile": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"templates": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"terraform-data": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"tf-json": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"tofu-files": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"unknown-flow": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"variables-optional": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"variables-sensitive": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"variables-tfvars": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"variables-types": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"variables-validation": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
	"workspace-path": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  :0: provider registry.opentofu.org/hashicorp/terraform: no version allowed by \"\" for linux_amd64 in the mirror MIRROR (it has none): ",
		},
	},
}
