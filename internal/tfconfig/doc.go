// Package tfconfig owns Terraform configurations: a directory of .tf,
// .tf.json, .tofu and .tofu.json files read as OpenTofu 1.12 reads them
// (a .tofu file hides the .tf file of its name, override files merged
// last), and their expansion into Kyku's model (config.Config) for one
// run: variables given their values (terraform.tfvars, *.auto.tfvars,
// --var-file, --var, TF_VAR_name), count, for_each and module calls
// expanded into instances addressed as Terraform addresses them
// (aws_subnet.public[0], data.aws_ami.x, module.net["a"].aws_subnet.y).
//
// Load reads a module tree (files.go, decode.go, resource.go, merge.go;
// local module paths itself, other sources through a Sources) and
// reports every problem at once as HCL diagnostics at file:line:col with
// the source line (diagnostics.go). Expand evaluates it (scope.go,
// instances.go, expand.go): an argument that reads no other resource
// becomes a plain value; one that does stays an expression (Expr, a
// value.Expr) the engine evaluates when it resolves the resource,
// against the values of the resources it reads (state, planned,
// unknown), with the built-in functions of internal/lang/funcs, the file
// functions confined to the configuration's repository. ExpandPartial
// leaves out what count or for_each cannot decide yet, for an expansion
// with more known (Inputs.Known: state, data sources read before the
// plan). Providers map onto Kyku's plugin providers (providers.go),
// Kyku's own types onto provider "kyku" (kyku.go); moved, import and
// removed blocks onto Kyku's moves, imports and forgotten addresses
// (moves.go); lifecycle onto the resource's protection, replace order,
// ignored arguments, triggers and conditions.
//
// Concurrency: a loaded Module is immutable once Load returns; Load and
// Expand run on one goroutine. An expanded configuration's expressions
// may be evaluated from many goroutines (Expand prepares everything they
// read).
package tfconfig
