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
	"estate-cert-validation": {
		why: "for_each over an attribute of a resource planned in this run (tls_cert_request.site.dns_names, configured and so known at plan) is refused by Kyku, which takes count and for_each only from values known before planning (variables, locals, data sources, state)",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:39: Invalid for_each argument: The \"for_each\" value includes keys or set values from resource attributes that cannot be determined until apply, and so OpenTofu cannot determine what will identify the instances of this resource.",
		},
	},
	"estate-module-foreach": {
		why: "a for over every instance of a module (module.service) is read by tfconfig as a read of every output of every instance, the sensitive random_password among them: Kyku refuses outputs endpoints and service_ids as reading a sensitive value not declared sensitive, which they do not in OpenTofu",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:69: output \"endpoints\" reads ${module.service[\"admin\"].random_password.db.result}, which is sensitive (its provider's schema says so, or it holds a sensitive value): declare it sensitive to have it masked wherever outputs are shown (endpoints: { value: \"${module.service[\"admin\"].random_password.db.result}\", sensitive: true })",
			"  main.tf:73: output \"service_ids\" reads ${module.service[\"admin\"].random_password.db.result}, which is sensitive (its provider's schema says so, or it holds a sensitive value): declare it sensitive to have it masked wherever outputs are shown (service_ids: { value: \"${module.service[\"admin\"].random_password.db.result}\", sensitive: true })",
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
	"for-each-resource-attr": {
		why: "for_each over an attribute of a resource planned in this run (terraform_data.catalog.input.services, configured and so known at plan) is refused by Kyku, which takes count and for_each only from values known before planning (variables, locals, data sources, state)",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:26: Invalid for_each argument: The \"for_each\" set includes values derived from resource attributes that cannot be determined until apply, and so OpenTofu cannot determine the full set of keys that will identify the instances of this resource.",
		},
	},
	"remote-state": {
		why: "Kyku marks terraform_remote_state's outputs sensitive as a whole when the state read holds any sensitive output (OpenTofu marks none of them): an output reading it must then be declared sensitive",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:29: output \"subnets\" reads ${data.terraform_remote_state.network.outputs}, which is sensitive (its provider's schema says so, or it holds a sensitive value): declare it sensitive to have it masked wherever outputs are shown (subnets: { value: \"${data.terraform_remote_state.network.outputs}\", sensitive: true })",
		},
	},
}
