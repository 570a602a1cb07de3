package engine

import (
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// The engine feeds the run's one scrubber (Options.Secrets) with what it
// comes to know as secret, as soon as it knows it: what state holds as
// secret, when it reads the state (a plan that fails is scrubbed of it
// too), and what each object an apply makes holds as secret, when the
// change is recorded (a later change's error may quote a password the
// apply generated). The front doors print with that book.

// Secrets is the book the engine feeds (Options.Secrets, or its own).
func (e *Engine) Secrets() *progress.SecretBook { return e.opts.Secrets }

// learnState adds what st holds as secret: the values of each resource's
// sensitive properties, as applied and as the cloud reported them.
func (e *Engine) learnState(st *state.File) {
	if st == nil {
		return
	}
	var texts []string
	for _, r := range st.Resources {
		texts = appendSecrets(texts, r)
	}
	e.opts.Secrets.Add(texts...)
}

// learnOutputs adds the values st holds of the outputs cfg declares
// sensitive.
func (e *Engine) learnOutputs(cfg *config.Config, outputs map[string]any) {
	if cfg == nil || len(outputs) == 0 {
		return
	}
	var texts []string
	for _, o := range cfg.Outputs {
		if o.Sensitive {
			texts = value.AppendLeaves(texts, outputs[o.Name])
		}
	}
	e.opts.Secrets.Add(texts...)
}

// appendSecrets appends the texts of r's sensitive properties.
func appendSecrets(texts []string, r *state.Resource) []string {
	if r == nil {
		return texts
	}
	for _, name := range r.Sensitive {
		paths, unread := planWithin(map[string][]string{name: r.SensitiveWithin[name]})
		_, partly := r.SensitiveWithin[name]
		partly = partly && len(unread) == 0
		texts = appendSecretTexts(texts, r.Config[name], paths[name], partly)
		texts = appendSecretTexts(texts, r.Outputs[name], paths[name], partly)
	}
	return texts
}

// appendSecretTexts appends the texts of a sensitive property's value v:
// those at its secret paths when it is secret only in parts (partly),
// else all of them.
func appendSecretTexts(texts []string, v any, paths []string, partly bool) []string {
	if !partly {
		return value.AppendLeaves(texts, v)
	}
	for _, p := range paths {
		texts = appendLeavesAt(texts, v, p)
	}
	return texts
}

// appendLeavesAt appends the texts of v's value at path p (value.Ref's
// Path syntax); of the whole of v when p is not in it.
func appendLeavesAt(texts []string, v any, p string) []string {
	steps, _ := value.ParsePath(p)
	at, known, err := value.Walk(v, steps)
	if !known || err != nil {
		return value.AppendLeaves(texts, v)
	}
	return value.AppendLeaves(texts, at)
}
