package funcs

import (
	"crypto/rand"
	"io"
	"maps"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/zclconf/go-cty/cty/function"
)

// Options is what the functions read from outside the expression.
type Options struct {
	// BaseDir is the module's directory (path.module): relative paths
	// given to the file functions and templatefile start there.
	BaseDir string
	// WorkDir is the directory abspath resolves relative paths against
	// (path.cwd); "" means the process's working directory.
	WorkDir string
	// Within, when set, confines the file functions (file, filebase64,
	// fileexists, fileset, templatefile, the file hashes) to the files
	// under this directory, links resolved: the configuration's
	// repository. OpenTofu reads any file; a pull request's configuration
	// must not read the runner's.
	Within string
	// Getenv reads the environment: HOME (USERPROFILE on Windows) for a
	// path starting with "~", TF_TEMPLATE_RECURSION_DEPTH for how deep
	// templatefile may nest. nil is an empty environment.
	Getenv func(string) string
	// Now is the clock timestamp() reads; nil makes timestamp() unknown.
	Now func() time.Time
	// PlanTimestamp is what plantimestamp() returns; zero makes it
	// unknown, as it is before a plan has started.
	PlanTimestamp time.Time
	// Rand is where uuid() draws its bytes; nil is crypto/rand.
	Rand io.Reader
	// Console builds the console's table: it has type() and lacks
	// plantimestamp(), as OpenTofu's console does.
	Console bool
	// PureOnly makes the impure functions (bcrypt, timestamp, uuid)
	// return unknown values, for checking a configuration before planning.
	PureOnly bool
	// BuiltinProvider names the local names a configuration gives
	// OpenTofu's built-in provider (terraform.io/builtin/terraform, most
	// often "terraform"): its functions are added under each,
	// provider::terraform::encode_tfvars.
	BuiltinProvider []string
	// Providers are the functions of the configuration's providers by
	// the name it calls them, provider::NAME::FUNCTION
	// (ProviderFunction).
	Providers map[string]function.Function
}

// CoreNamespace is the prefix under which every built-in function is
// also reachable ("core::upper"), so a provider function cannot shadow it.
const CoreNamespace = "core::"

// impure are the functions whose result changes from call to call.
var impure = [...]string{"bcrypt", "timestamp", "uuid"}

// Table builds the function table for an hcl.EvalContext: every
// built-in function by name and again under CoreNamespace.
func Table(opts Options) map[string]function.Function {
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if opts.Rand == nil {
		opts.Rand = rand.Reader
	}
	t := map[string]function.Function{}
	addNumeric(t)
	addString(t)
	addCollection(t)
	addEncoding(t)
	addFilesystem(t, opts)
	addDatetime(t, opts)
	addCrypto(t, opts)
	addNetwork(t)
	addConversion(t)
	for _, local := range opts.BuiltinProvider {
		addBuiltinProvider(t, local)
	}
	maps.Copy(t, opts.Providers)
	// The templates see the finished table, themselves included.
	var final map[string]function.Function
	tables := func() map[string]function.Function { return final }
	t["templatefile"] = templateFileFunc(opts, tables, 0)
	t["templatestring"] = templateStringFunc(tables)
	if opts.Console {
		t["type"] = typeFunc()
	} else {
		t["plantimestamp"] = planTimestampFunc(opts.PlanTimestamp)
	}
	if opts.PureOnly {
		for _, name := range impure {
			t[name] = function.Unpredictable(t[name])
		}
	}
	for name, f := range t {
		t[name] = guarded(f)
	}
	// try and can take expressions, not values: they report the
	// diagnostics of the expressions themselves.
	t["try"], t["can"] = tryfunc.TryFunc, tryfunc.CanFunc
	for name, f := range maps.Clone(t) {
		if !strings.Contains(name, "::") { // a provider's are its own
			t[CoreNamespace+name] = f
		}
	}
	final = t
	return t
}
