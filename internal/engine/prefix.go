package engine

// WithDeployPrefix returns a copy of e that names new cloud resources with
// prefix when the state records none yet (a state's own prefix always
// wins). A re-plan at apply time uses the reviewed plan's prefix, so that
// a first plan, which writes no state, and its re-plan name the same
// cloud resources.
func (e *Engine) WithDeployPrefix(prefix string) *Engine {
	c := *e
	c.opts.DeployPrefix = prefix
	return &c
}
