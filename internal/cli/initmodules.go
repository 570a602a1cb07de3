package cli

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/tfmodule"
)

// initModules installs the modules of the Terraform configuration in -c
// as OpenTofu's init does (package tfmodule): registry and remote
// packages under .terraform/modules, modules.json saying where each is,
// OpenTofu's lines on stdout. Git runs with the providers' environment
// (its credentials, its HOME). A root module calling no module has
// nothing to install, and init says nothing of modules (OpenTofu's way).
func (c *common) initModules(ctx context.Context, env *Env, upgrade bool) error {
	calls := tfconfig.EarlyCalls(c.terraformInputs(env))
	if found, _ := calls(c.config, nil); len(found) == 0 {
		return nil // its errors are the loader's to report
	}
	client := env.ModulesHTTP
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Minute}
	}
	in := &tfmodule.Installer{
		HTTP:     client,
		Boundary: tfconfig.ModuleBoundary(c.config),
		Hooks:    tfmodule.TextHooks{W: env.Stdout},
		// Registry tokens; git sources use git's own credentials.
		Credentials: env.registryCredentials(),
		// sources and versions reading variables and locals, with the
		// values plan will read them with
		Calls: calls,
	}
	if env.Environ != nil {
		in.Git.Env = env.Environ()
	}
	fmt.Fprintln(env.Stdout, tfmodule.Heading(upgrade))
	_, diags := in.Install(ctx, c.config, upgrade)
	for _, d := range diags {
		if d.Severity == hcl.DiagWarning {
			env.notices.say(fmt.Sprintf("kyku: warning: %s: %s", d.Summary, d.Detail), false)
		}
	}
	if err := tfconfig.DiagnosticsError(diags); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout)
	return nil
}
