// Package tfconfig owns Terraform configurations: a directory of .tf,
// .tf.json, .tofu and .tofu.json files read as OpenTofu 1.12 reads them
// (a .tofu file hides the .tf file of its name, override files merged
// last), and their expansion into Kyku's model (config.Config) for one
// run: variables given their values (terraform.tfvars, *.auto.tfvars,
// --var-file, --var, TF_VAR_name), count, for_each and module calls
// expanded into instances addressed as Terraform addresses them
// (aws_subnet.public[0], data.aws_ami.x, module.net["a"].aws_subnet.y).
//
// Load reads a module tree (files.go, decode.go, resource.go; module
// sources through a Sources, local paths without one) and reports every
// problem at once as HCL diagnostics at file:line:col with the source
// line (diagnostics.go). Expand evaluates it (scope.go): a resource's
// arguments that read no other resource become plain values; the others
// stay expressions (Expr, a value.Expr) that the engine evaluates when it
// resolves the resource, against the values of the resources they read
// (state, planned, unknown), with the built-in functions of
// internal/lang/funcs.
//
// Concurrency: a loaded Module and an expanded configuration are
// immutable; their expressions may be evaluated from many goroutines.
package tfconfig
