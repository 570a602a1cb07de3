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
			"  main.tf:23: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"conditionals": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:34: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"count": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:19: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:27: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:32: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:41: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"depends-on": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:13: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:17: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:28: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  modules/app/main.tf:5: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"error-count-unknown": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"missing error: main.tf:18: Invalid count argument",
			"extra error: main.tf:17: Unsupported built-in type",
		},
	},
	"error-for-each-unknown": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"missing error: main.tf:16: Invalid for_each argument",
			"missing error: main.tf:27: Invalid for_each argument",
			"extra error: main.tf:15: Unsupported built-in type",
			"extra error: main.tf:21: Unsupported built-in type",
			"extra error: main.tf:26: Unsupported built-in type",
		},
	},
	"error-precondition": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"missing error: main.tf:14: Resource precondition failed",
			"missing error: main.tf:24: Module output value precondition failed",
			"extra error: main.tf:9: Unsupported built-in type",
		},
	},
	"error-sensitive-for-each": {
		why: "uses terraform_data, which the loader refuses before the errors OpenTofu reports are evaluated",
		diffs: []string{
			"missing error: main.tf:11: Invalid for_each argument",
			"extra error: main.tf:10: Unsupported built-in type",
		},
	},
	"error-validation": {
		why: "uses terraform_data, which the loader refuses before the errors OpenTofu reports are evaluated",
		diffs: []string{
			"missing error: main.tf:4: Invalid value for variable",
			"missing error: main.tf:13: Invalid value for variable",
			"missing error: terraform.tfvars:3: Required variable not set",
			"extra error: main.tf:27: Unsupported built-in type",
		},
	},
	"estate-cert-validation": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:38: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:47: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"estate-iam-policy": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:74: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:88: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"estate-module-foreach": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  modules/service/main.tf:47: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"estate-userdata": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:50: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:60: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
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
			"  main.tf:28: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:33: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"for-each-map": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:21: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:30: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:35: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"for-each-resource-attr": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:17: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:25: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:44: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"for-each-state-attr": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:16: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:21: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"for-expressions": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:32: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"functions-datetime": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:29: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"functions-filesystem": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:55: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"functions-hash-crypto": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:30: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"functions-impure": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:8: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
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
			"  main.tf:30: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"lifecycle-conditions": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:36: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"lifecycle-create-before-destroy": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:29: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"lifecycle-ignore-changes": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:12: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:24: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"lifecycle-replace-triggered-by": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:13: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:17: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"locals": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:23: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"modules-count-foreach": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  modules/bucket/main.tf:9: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  modules/bucket/main.tf:16: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"modules-local": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:12: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  modules/network/main.tf:13: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  modules/network/modules/subnet/main.tf:13: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"moved": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:14: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:37: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  modules/box/main.tf:5: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"override-files": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:14: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:21: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  server_override.tf:1: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"remote-state": {
		why: "uses terraform_data and terraform_remote_state, types of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:5: Unsupported built-in type: Kyku does not read another configuration's state yet: pass what this configuration needs as variables, or read it with a data source of the cloud.",
			"  main.tf:19: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"removed": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:35: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"splats": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:22: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:27: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"state-changes": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:13: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:17: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"templatefile": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:22: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"templates": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:38: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"terraform-data": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:4: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:6: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:10: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:14: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:23: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:28: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"tf-json": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf.json:17: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"tofu-files": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:4: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  shared.tofu:5: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"unknown-flow": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:31: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:64: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"variables-optional": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:43: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:47: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:52: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"variables-sensitive": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:28: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:35: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:39: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:43: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"variables-tfvars": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:42: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"variables-types": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:65: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
			"  main.tf:77: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"variables-validation": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:51: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
	"workspace-path": {
		why: "uses terraform_data, a type of OpenTofu's built-in provider (hashicorp/terraform), which Kyku does not serve yet",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:9: Unsupported built-in type: Kyku does not serve terraform_data yet: use hashicorp/null's null_resource, whose triggers replace it as triggers_replace does.",
		},
	},
}
