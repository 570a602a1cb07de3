package review

import (
	"fmt"

	"github.com/kyku/action/internal/github"
)

// The check runs of a plan (the bot shows one per project and environment
// on the head commit), one render function each; testdata/checks.md holds
// every one. The front door names them and posts them.

// PlanFailure is why a plan's check run failed before there was a plan.
type PlanFailure int

// The failures.
const (
	SourceUnreadable PlanFailure = iota + 1 // the pull request's source cannot be read
	ConfigInvalid                           // its configuration has errors (a diag.Diagnostics)
	NoTrustedConfig                         // the default branch's configuration cannot be read
	PlanFailed                              // planning failed
)

// PlanningCheck is the check run of a plan that started.
func PlanningCheck(name string) github.CheckRun {
	return github.CheckRun{Name: name, Status: github.CheckInProgress}
}

// PlanningAgainCheck is the check run of a plan taken over from a bot
// that stopped before it ended.
func PlanningAgainCheck(name string) github.CheckRun {
	return github.CheckRun{Name: name, Status: github.CheckInProgress, Title: "Planning again",
		Summary: "The bot that started this plan stopped before it ended; another one plans it again from the start.\n"}
}

// PlanCheck is the completed check run of o's plan: success when it
// changes something, neutral when it changes nothing; titled by what it
// does, its summary the plan's job summary.
func (o *PlanOutcome) PlanCheck(name string) github.CheckRun {
	check := github.CheckRun{Name: name, Status: github.CheckCompleted, Conclusion: github.CheckSuccess, Title: "Plan"}
	if o.Plan != nil {
		c := o.Plan.Counters
		check.Title = fmt.Sprintf("%d to create, %d to update, %d to replace, %d to destroy", c.Create, c.Update, c.Replace, c.Destroy)
		if c.Move > 0 {
			check.Title += fmt.Sprintf(", %d to move", c.Move)
		}
		if c.Import > 0 {
			check.Title += fmt.Sprintf(", %d to import", c.Import)
		}
		if !o.Plan.HasChanges() {
			check.Conclusion = github.CheckNeutral
		}
	}
	check.Summary = o.Summary
	if check.Summary == "" {
		check.Summary = check.Title
	}
	return check
}

// PlanFailedCheck is the completed check run of a plan that failed: why,
// the error (scrubbed by the caller: whoever reads the repository reads
// it), and for NoTrustedConfig the default branch.
func PlanFailedCheck(name string, why PlanFailure, detail, defaultBranch string) github.CheckRun {
	check := github.CheckRun{Name: name, Status: github.CheckCompleted, Conclusion: github.CheckFailure, Summary: Fenced(detail)}
	switch why {
	case SourceUnreadable:
		check.Title = "Cannot read the source"
	case ConfigInvalid:
		check.Title = "Configuration errors"
	case NoTrustedConfig:
		check.Title = "No valid configuration on the default branch"
		check.Summary = "The backend is opened from the configuration of this project on the default branch " + code(defaultBranch) +
			", which cannot be read:\n\n" + Fenced(detail) + "\nMerge the project's configuration (with its backend) first."
	default:
		check.Title = "Plan failed"
	}
	return check
}

// ForkCheck is the check run "kyku" of a pull request from a fork, which
// is never planned on its own: neutral, saying so (with allow-fork-prs,
// that someone may ask for a plan).
func ForkCheck(s Settings, number int, headRepo string) github.CheckRun {
	check := github.CheckRun{Name: "kyku", Status: github.CheckCompleted, Conclusion: github.CheckNeutral,
		Title: "Not planned: pull request from a fork", Summary: ForkNotPlanned(number, headRepo)}
	if s.AllowForkPRs {
		check.Summary = ForkPlannedOnRequest(number, headRepo, s)
	}
	return check
}
