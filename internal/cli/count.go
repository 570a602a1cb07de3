package cli

import (
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/noun"
)

// resourceCount is how validate and plan count a configuration's
// resources, the same way: every instance of count and forEach (web[0],
// web[1]…), and the auto-subnets each Vpc's distributeAcrossAzs adds (two
// per zone, whether or not the engine injected them into cfg yet).
func resourceCount(cfg *config.Config) (total, auto int) {
	for _, r := range cfg.Resources {
		if r.AutoFrom != "" {
			continue // counted with its Vpc below
		}
		total++
		if n, _ := r.Properties["distributeAcrossAzs"].(float64); r.Type == "Vpc" && n > 0 {
			auto += len(config.AutoSubnetNames(r.Name, int(n)))
		}
	}
	return total + auto, auto
}

// countText is the count as both commands print it: "9 resources (count
// and forEach instances and 2 auto-subnets included)"; without a Vpc's
// auto-subnets, "3 resources (count and forEach instances included)", a
// directory of .tf files' in its own words ("count and for_each").
func countText(cfg *config.Config) string {
	total, auto := resourceCount(cfg)
	forEach := "forEach"
	if cfg.Terraform {
		forEach = "for_each"
	}
	if auto == 0 {
		return noun.Count(total, "resource") + " (count and " + forEach + " instances included)"
	}
	return noun.Count(total, "resource") + " (count and " + forEach + " instances and " + noun.Count(auto, "auto-subnet") + " included)"
}

// verb is the form of a verb whose subject counts n things: plural
// ("match") unless n is 1 ("matches").
func verb(n int, plural, one string) string {
	if n == 1 {
		return one
	}
	return plural
}
