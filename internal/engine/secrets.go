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
		texts = value.AppendLeaves(texts, r.Config[name])
		texts = value.AppendLeaves(texts, r.Outputs[name])
	}
	return texts
}
