// Package funcs owns the built-in functions of the HCL language as
// OpenTofu 1.12 documents them: numeric, string, collection, encoding,
// filesystem, date and time, hash and crypto, IP network and type
// conversion functions, each a go-cty function.Function. Table builds
// the table an hcl.EvalContext takes, every name also under "core::";
// Options injects what a function reads from outside (the module's
// directory, the working directory, the environment, the clock, the plan's
// timestamp, randomness).
//
// Unknown arguments give unknown results (refined where the answer is
// partly known) and marks (package marks) carry through every function:
// a result computed from a sensitive value is sensitive, and no error
// message quotes a sensitive argument. Only sensitive, nonsensitive,
// issensitive and ephemeralasnull act on marks themselves.
//
// Functions taken whole from go-cty's stdlib and hcl's tryfunc are used
// as they are; the rest are written here, one file per family. Nothing
// runs at package init: each Table call builds its functions. A table is
// safe for concurrent use; the file functions read files at call time.
package funcs
