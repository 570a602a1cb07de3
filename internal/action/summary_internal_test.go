package action

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/review"
)

// TestApplySummaryScrubsSecrets: the job summary of an apply shows each
// failed change's error as the PR comment does, scrubbed, whether the
// secret is a provider's sensitive attribute the applied plan carries (a
// sim Database's engine read from it fails with `property engine:
// "hunter2-secret" is not one of …`) or one the run knows from the
// configuration; wrapped, twice, over several lines, in a failed destroy
// and in the cause of a skip; and the text of a refusal.
func TestApplySummaryScrubsSecrets(t *testing.T) {
	const attr, known = "hunter2-secret", "var-pw-secret"
	applied := &plan.Plan{Changes: []plan.Change{
		{Action: plan.Create, ResourceID: "a", Type: "fwtest_item", Properties: []plan.PropChange{
			{Path: "name", New: "a"}, {Path: "secret", New: attr, Sensitive: true},
		}},
		{Action: plan.Create, ResourceID: "db", Type: "Database", Properties: []plan.PropChange{
			{Path: "engine", New: "(known after apply)", Sensitive: true, Unknown: true},
		}},
	}}
	engineErr := errors.New(`sim: Database "db": property engine: "hunter2-secret" is not one of postgres, mysql, mariadb`)
	tests := []struct {
		name    string
		out     *review.ApplyOutcome
		secrets progress.Secrets
		want    string
	}{
		{"a sensitive attribute the applied plan carries", &review.ApplyOutcome{Applied: true, Result: &engine.Result{
			Plan:      applied,
			Succeeded: []engine.ChangeResult{{Action: plan.Create, Type: "fwtest_item", Name: "a", ProviderID: "x-1"}},
			Failed:    []engine.ChangeResult{{Action: plan.Create, Type: "Database", Name: "db", Err: engineErr}},
		}}, progress.Secrets{}, `property engine: "(sensitive)" is not one of postgres`},
		{"wrapped, twice, over several lines", &review.ApplyOutcome{Applied: true, Result: &engine.Result{
			Plan: applied,
			Failed: []engine.ChangeResult{{Action: plan.Create, Type: "Database", Name: "db",
				Err: fmt.Errorf("create: %w", fmt.Errorf("provider:\n  %w\n  (you sent %q)", engineErr, attr))}},
		}}, progress.Secrets{}, `(you sent "(sensitive)")`},
		{"a secret the run knows", &review.ApplyOutcome{Applied: true, Result: &engine.Result{
			Failed: []engine.ChangeResult{{Action: plan.Update, Type: "Vm", Name: "web", Err: errors.New("user data var-pw-secret rejected")}},
		}}, progress.NewSecrets(known), "user data (sensitive) rejected"},
		{"a failed destroy", &review.ApplyOutcome{Applied: true, Result: &engine.Result{
			Failed: []engine.ChangeResult{{Action: plan.Destroy, Type: "Vm", Name: "old", Err: errors.New(`delete: instance tagged "var-pw-secret" is protected`)}},
		}}, progress.NewSecrets(known), `instance tagged "(sensitive)" is protected`},
		{"the cause of a skip", &review.ApplyOutcome{Applied: true, Result: &engine.Result{
			Plan:    applied,
			Failed:  []engine.ChangeResult{{Action: plan.Create, Type: "Database", Name: "db", Err: engineErr}},
			Skipped: []engine.ChangeResult{{Action: plan.Create, Type: "Vm", Name: "app", Err: fmt.Errorf("dependency db failed: %w", engineErr)}},
		}}, progress.Secrets{}, `dependency db failed: sim: Database "db": property engine: "(sensitive)"`},
		{"a refusal", &review.ApplyOutcome{Refused: &review.Refusal{Requirement: review.RequireReviewedPlan, Message: "The plan quotes var-pw-secret."}}, progress.NewSecrets(known), "The plan quotes (sensitive)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := summaryApply("", tt.out, render.Meta{}, tt.secrets)
			if strings.Contains(s, attr) || strings.Contains(s, known) {
				t.Errorf("the job summary shows a secret:\n%s", s)
			}
			if !strings.Contains(s, tt.want) {
				t.Errorf("the job summary does not say %q:\n%s", tt.want, s)
			}
		})
	}
}
