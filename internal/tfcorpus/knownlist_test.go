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
	"remote-state": {
		why: "Kyku marks terraform_remote_state's outputs sensitive as a whole when the state read holds any sensitive output (OpenTofu marks none of them): an output reading it must then be declared sensitive",
		diffs: []string{
			"Kyku refuses what OpenTofu plans:",
			"  main.tf:30: Output refers to sensitive values: output \"subnets\" reads data.terraform_remote_state.network.outputs, which is sensitive (its provider's schema says so, or it holds a sensitive value): declare the output sensitive = true to confirm your intent (or take the mark off with nonsensitive())",
		},
	},
}
