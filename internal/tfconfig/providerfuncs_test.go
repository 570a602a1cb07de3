package tfconfig_test

import (
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/value"
)

// upperFunctions is a provider's function set for the tests: upper.
func upperFunctions() map[string]function.Function {
	return map[string]function.Function{"upper": function.New(&function.Spec{
		Params: []function.Parameter{{Name: "s", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.StringVal(strings.ToUpper(args[0].AsString())), nil
		},
	})}
}

func outputOf(cfg *config.Config, name string) any {
	for _, o := range cfg.Outputs {
		if o.Name == name {
			v, _ := value.Resolve(o.Value, nil)
			return v
		}
	}
	return nil
}

// TestProviderFunctionsAskedOncePerProvider: the functions of a provider
// are asked for once, whatever local names and modules call them, HCL
// and JSON files alike; a provider only called for its functions is
// among those installed (kyku init); one no call names is not asked.
func TestProviderFunctionsAskedOncePerProvider(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"main.tf": `terraform {
  required_providers {
    fx    = { source = "example/fx", version = "1.2.0" }
    alias = { source = "registry.opentofu.org/example/fx", version = "1.2.0" }
    other = { source = "example/other" }
  }
}
# provider::other::upper("a comment is no call")
output "a" { value = provider::fx::upper("a") }
output "b" { value = provider::alias::upper("b") }
module "m" { source = "./m" }
output "c" { value = module.m.c }
`,
		"json.tf.json": `{"output": {"d": {"value": "${provider::fx::upper(\"d\")}"}}}`,
		"m/main.tf": `terraform {
  required_providers {
    mine = { source = "example/fx" }
  }
}
output "c" { value = provider::mine::upper("c") }
`,
	})
	m, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	in := tfconfig.Inputs{ProviderFunctions: func(local, source, version string) (map[string]function.Function, error) {
		asked = append(asked, local+" "+source+" "+version)
		return upperFunctions(), nil
	}}
	cfg, err := tfconfig.Expand(m, in)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a": "A", "b": "B", "c": "C", "d": "D"} {
		if got := outputOf(cfg, name); got != want {
			t.Errorf("output %s = %v, want %q", name, got, want)
		}
	}
	if len(asked) != 1 {
		// example/fx once (under fx, alias and mine), the JSON file's
		// call the same; registry.opentofu.org/example/fx is example/fx.
		t.Errorf("functions asked for %q, want example/fx once (the same source under alias counts too)", asked)
	}
	var installed []string
	for _, pp := range cfg.Providers {
		installed = append(installed, pp.Name+"="+pp.Source)
	}
	if !strings.Contains(strings.Join(installed, " "), "other=example/other") || !strings.Contains(strings.Join(installed, " "), "fx=example/fx") {
		t.Errorf("providers installed %q, want fx (called for its functions) and other (required, never called: installed as OpenTofu installs it)", installed)
	}

	// kyku init: nothing asked, every call unknown.
	cfg, err = tfconfig.Expand(m, tfconfig.Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	if got := outputOf(cfg, "a"); got != value.Unknown {
		t.Errorf("without the providers, output a = %v, want unknown", got)
	}
}

// TestProviderFunctionErrors: each call OpenTofu refuses is said where it
// is, once, in OpenTofu's words: a local name the module does not
// require, a function the provider lacks, and a provider whose functions
// cannot be listed.
func TestProviderFunctionErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"main.tf": `terraform {
  required_providers {
    fx     = { source = "example/fx" }
    broken = { source = "example/broken" }
  }
}
output "a" { value = provider::nope::upper("a") }
output "b" { value = provider::fx::lower("b") }
output "c" { value = provider::broken::upper("c") }
output "d" { value = provider::fx::upper("d") }
`})
	m, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	in := tfconfig.Inputs{ProviderFunctions: func(local, source, version string) (map[string]function.Function, error) {
		if source == "example/broken" {
			return nil, errTest
		}
		return upperFunctions(), nil
	}}
	_, err = tfconfig.Expand(m, in)
	if err == nil {
		t.Fatal("Expand accepted calls of undefined functions")
	}
	got := err.Error()
	for _, want := range []string{
		`main.tf:7:22: Unknown function provider: Provider "nope" does not exist within the required_providers of this module`,
		`main.tf:8:22: Function not found in provider: Function "provider::fx::lower" was not registered by provider`,
		`main.tf:9:22: Failed to load provider functions: The functions of provider "broken" (example/broken) could not be listed: the test provider fails.`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("errors lack %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "main.tf:"); n != 3 {
		t.Errorf("%d errors, want the three calls each said once:\n%s", n, got)
	}
}

var errTest = testError("the test provider fails")

type testError string

func (e testError) Error() string { return string(e) }
