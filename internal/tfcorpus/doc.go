// Package tfcorpus is the conformance corpus against OpenTofu: the
// configurations under testdata/tfcorpus, each with OpenTofu's plan of it
// recorded as a golden (tofu show -json, re-recorded by
// .ci/record-tofu-goldens), and the comparison of a Kyku plan with that
// golden.
//
// Both plans are brought to one normalised shape (Plan): per resource
// instance its address, OpenTofu's action list, its planned values with
// the parts known only after apply marked Unknown, and the paths of its
// sensitive values; per root output its action, value and sensitivity.
// FromTofu reads a golden, FromKyku reads `kyku plan --json`, and Compare
// lists every difference, naming the address and the attribute.
//
// Pure functions over bytes; safe for concurrent use.
package tfcorpus
