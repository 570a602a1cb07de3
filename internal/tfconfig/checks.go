package tfconfig

import "github.com/kyku/action/internal/config"

// checkAssertions adds the assertions of the check blocks of mi and of
// every module instance it calls to cfg (config.Config.CheckAssertions):
// the plan evaluates each, what it reads known, and reports one that
// fails as a warning, as OpenTofu does.
func (ev *evaluator) checkAssertions(mi *modInst, cfg *config.Config) {
	for _, name := range sortedKeys(mi.mod.Checks) {
		for _, rule := range mi.mod.Checks[name].Assertions {
			sc := scope{mi: mi}
			c := newCondition(sc, rule)
			cfg.CheckAssertions = append(cfg.CheckAssertions, &config.Condition{Check: c, Pos: pos(rule.Condition.Range())})
		}
	}
	for _, name := range sortedKeys(mi.mod.Calls) {
		for _, child := range mi.expandCall(name).children {
			ev.checkAssertions(child, cfg)
		}
	}
}
