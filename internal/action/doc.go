// Package action owns Kyku's GitHub Action use case: it reads the Action's
// inputs and the event the runner delivered (through go-githubactions, with
// the environment injected), turns that event into one call of the shared
// review rules (package review: plan a pull request, answer a `/kyku`
// comment, apply a merged pull request's plan, check drift), and reports
// back the way a runner expects: step outputs in GITHUB_OUTPUT, a job
// summary in GITHUB_STEP_SUMMARY, config errors as `::error file=…,line=…`
// annotations, secrets registered with `::add-mask::`, and an exit code.
//
// It implements no review rule itself (permission, approval, staleness,
// sticky comments and drift issues live in package review, shared with the
// bot); it only decides which rule an event asks for and which
// configuration (the checkout, or a pull request's head through the API) it
// is given.
//
// Concurrency: Run handles one event and may be called concurrently with
// different Envs (tests do); everything it writes to Env.Stdout goes
// through one mutex, so masks and annotations are never interleaved.
package action
