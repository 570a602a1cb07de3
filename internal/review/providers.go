package review

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/tfinstall"
)

// Terraform providers run code with the run's credentials, and a pull
// request can write its providers: section and the lock file. The front
// doors open the workspace with the default branch's configuration and
// lock (see package action and package bot), so a pull request's own
// take effect once merged; its plan comment says so at the top, naming
// what it changes.

// providerChanges names the providers: entries pr adds, removes or
// changes against trusted ("providers.null"); nil when trusted is nil (the
// configuration is the trusted one).
func providerChanges(trusted, pr *config.Config) []string {
	if trusted == nil || pr == nil {
		return nil
	}
	was := map[string]string{}
	for _, pp := range trusted.Providers {
		was[pp.Name] = providerJSON(pp)
	}
	var out []string
	for _, pp := range pr.Providers {
		if old, ok := was[pp.Name]; !ok || old != providerJSON(pp) {
			out = append(out, "providers."+pp.Name)
		}
		delete(was, pp.Name)
	}
	for name := range was {
		out = append(out, "providers."+name)
	}
	slices.Sort(out)
	return out
}

func providerJSON(pp *config.PluginProvider) string {
	b, _ := json.Marshal(pp)
	return string(b)
}

// splitLocks takes the lock files out of the changed rule files.
func splitLocks(files []string) (rules, locks []string) {
	for _, f := range files {
		if tfinstall.IsLockFile(f) {
			locks = append(locks, f)
		} else {
			rules = append(rules, f)
		}
	}
	return rules, locks
}

// changedProviders is what the pull request of req changes of the
// providers: its providers: entries and lock files (a failure to list the
// files leaves them out: the notice is a courtesy, the rule is enforced
// by the front door).
func changedProviders(ctx context.Context, d Deps, req PlanRequest) []string {
	out := providerChanges(req.Trusted, req.Config)
	if req.Number > 0 && d.RuleChanges != nil {
		if files, err := d.RuleChanges(ctx, req.Number); err == nil {
			_, locks := splitLocks(files)
			out = append(out, locks...)
		}
	}
	return out
}
