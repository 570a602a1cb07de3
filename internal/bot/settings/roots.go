package settings

import "go.yaml.in/yaml/v3"

// checkRoots refuses, with terraform-roots: true, the settings a
// Terraform root cannot honour, each in one line at its key, rather than
// leaving the roots out of them silently:
//
//   - execution: actions: the bot runs nothing itself and dispatches the
//     workflow for kyku.yaml's projects; the roots would be planned by
//     no one (the Action plans them in a workflow of its own);
//   - promotion: it orders a project's environments, and a root has one
//     workspace: envs/prod would be applied without waiting for
//     envs/staging, which is what promotion is there to prevent.
//
// terraform-new-roots needs terraform-roots.
func (p *parser) checkRoots(root *yaml.Node, s *Settings) {
	at := func(key string) *yaml.Node {
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == key {
				return root.Content[i]
			}
		}
		return root
	}
	if !s.TerraformRoots {
		if s.NewRoots {
			p.errf(at("terraform-new-roots"), "terraform-new-roots: allow needs terraform-roots: true (the bot plans no Terraform root without it)")
		}
		return
	}
	if s.Execution == Actions {
		p.errf(at("execution"), "execution: actions cannot go with terraform-roots: true: the bot then runs nothing itself and dispatches the workflow for kyku.yaml's projects only, "+
			"so no one would plan the Terraform roots; run the Action with its input terraform-roots in the workflow instead, or use execution: in-process")
	}
	if len(s.Promotion) > 0 {
		p.errf(at("promotion"), "promotion cannot go with terraform-roots: true: it orders a project's environments, and a Terraform root has one workspace, "+
			"so a root such as envs/prod would be applied without waiting for envs/staging; remove promotion, or terraform-roots")
	}
}
