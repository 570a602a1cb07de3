package settings

import (
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/envname"
	"github.com/kyku/action/internal/permission"
	"github.com/kyku/action/internal/review"
	"go.yaml.in/yaml/v3"
)

var (
	topKeys     = []string{"projects", "require-approval", "required-approvals", "apply-permission", "plan-permission", "approver-permission", "apply", "comment", "execution", "workflow", "allow-fork-prs", "drift", "policy-owners", "promotion", "concurrent-applies", "terraform-roots", "terraform-new-roots"}
	driftKeys   = []string{"enabled", "write-state"}
	projectKeys = []string{"name", "config", "environments", "autoplan"}
	// applyModes are the apply modes the bot knows (the merge queue is
	// the Action's).
	applyModes = []string{review.ApplyOnComment.String(), review.ApplyOnMerge.String(), review.ApplyOnBoth.String()}
)

type parser struct {
	file  string
	diags diag.Diagnostics
}

func (p *parser) pos(n *yaml.Node) diag.Pos {
	return diag.Pos{File: p.file, Line: n.Line, Col: n.Column}
}

func (p *parser) errf(n *yaml.Node, format string, args ...any) {
	p.diags.Add(p.pos(n), format, args...)
}

// Parse reads a settings file (name is used in positions). Missing keys
// take the Defaults; bad input is a diag.Diagnostics listing every problem.
func Parse(name string, data []byte) (*Settings, error) {
	p := &parser{file: name}
	s := Defaults()
	s.FromFile = true
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		p.diags.Add(diag.Pos{File: name}, "invalid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
		return nil, p.diags
	}
	if len(doc.Content) == 0 {
		return s, nil // an empty file: the defaults
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		p.errf(root, "settings must be a mapping")
		return nil, p.diags
	}
	p.each(root, "settings", topKeys, func(k, v *yaml.Node) {
		switch k.Value {
		case "projects":
			s.Projects = p.projects(v)
		case "terraform-roots":
			s.TerraformRoots = p.boolean(v, k.Value)
		case "terraform-new-roots":
			s.NewRoots = p.oneOf(v, k.Value, []string{"refuse", "allow"}) == "allow"
		case "allow-fork-prs":
			s.AllowForkPRs = p.boolean(v, k.Value)
		case "concurrent-applies":
			s.ConcurrentApplies = p.boolean(v, k.Value)
		case "require-approval":
			s.RequireApproval = p.boolean(v, k.Value)
		case "apply-permission":
			s.ApplyPermission = p.permission(v, k.Value)
		case "plan-permission":
			s.PlanPermission = p.permission(v, k.Value)
		case "approver-permission":
			s.ApproverPermission = p.permission(v, k.Value)
		case "required-approvals":
			var n int
			if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || v.Decode(&n) != nil || n < 1 || n > MaxRequiredApprovals {
				p.errf(v, "required-approvals must be a number from 1 to %d", MaxRequiredApprovals)
			} else {
				s.RequiredApprovals = n
			}
		case "apply":
			if m, ok := review.ParseApplyMode(p.oneOf(v, k.Value, applyModes)); ok {
				s.Apply = m
			}
		case "comment":
			s.Comment = p.oneOf(v, k.Value, []string{"sticky", "new", "off"})
		case "execution":
			if p.oneOf(v, k.Value, []string{"in-process", "actions"}) == "actions" {
				s.Execution = Actions
			}
		case "drift":
			s.Drift = p.drift(v)
		case "policy-owners":
			s.PolicyOwners = p.strings(v, k.Value)
			for i, o := range s.PolicyOwners {
				if !ownerRE().MatchString(o) {
					p.errf(v.Content[i], "policy owner %q is not a login or an org/team slug", o)
				}
			}
		case "promotion":
			s.Promotion = p.strings(v, k.Value)
			seen := map[string]bool{}
			for i, e := range s.Promotion {
				if err := envname.Check(e); err != nil || e == "" {
					p.errf(v.Content[i], "invalid environment name %q in promotion (%s)", e, envname.Rule)
				} else if seen[e] {
					p.errf(v.Content[i], "environment %q listed twice in promotion", e)
				}
				seen[e] = true
			}
		case "workflow":
			if w := p.str(v, k.Value); w != "" && !wfRE().MatchString(w) {
				p.errf(v, "workflow must be a workflow file name such as kyku.yml, not %q", w)
			} else if w != "" {
				s.Workflow = w
			}
		}
	})
	p.checkRoots(root, s)
	if len(p.diags) > 0 {
		p.diags.Sort()
		return nil, p.diags
	}
	return s, nil
}

// each walks a mapping, reporting unknown and repeated keys.
func (p *parser) each(m *yaml.Node, where string, known []string, f func(k, v *yaml.Node)) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		switch {
		case !slices.Contains(known, k.Value):
			p.errf(k, "unknown key %q in %s (known: %s)", k.Value, where, strings.Join(known, ", "))
		case seen[k.Value]:
			p.errf(k, "key %q given twice in %s", k.Value, where)
		default:
			seen[k.Value] = true
			f(k, v)
		}
	}
}

func (p *parser) str(v *yaml.Node, key string) string {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		p.errf(v, "%s must be a string", key)
		return ""
	}
	return v.Value
}

func (p *parser) boolean(v *yaml.Node, key string) bool {
	var b bool
	if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || v.Decode(&b) != nil {
		p.errf(v, "%s must be true or false", key)
	}
	return b
}

func (p *parser) oneOf(v *yaml.Node, key string, allowed []string) string {
	s := p.str(v, key)
	if s != "" && !slices.Contains(allowed, s) || s == "" && v.Kind == yaml.ScalarNode {
		p.errf(v, "%s must be one of %s, not %q", key, strings.Join(allowed, ", "), s)
		return ""
	}
	return s
}

// permission reads a permission level a rule requires (package
// permission's table).
func (p *parser) permission(v *yaml.Node, key string) permission.Level {
	l, _ := permission.Required(p.oneOf(v, key, permission.Names()))
	return l
}

func (p *parser) strings(v *yaml.Node, key string) []string {
	if v.Kind != yaml.SequenceNode {
		p.errf(v, "%s must be a list of strings", key)
		return nil
	}
	out := make([]string, 0, len(v.Content))
	for _, it := range v.Content {
		out = append(out, p.str(it, key+" entry"))
	}
	return out
}

func (p *parser) drift(v *yaml.Node) Drift {
	d := Drift{Enabled: true}
	if v.Kind != yaml.MappingNode {
		p.errf(v, "drift must be a mapping with enabled, write-state")
		return d
	}
	p.each(v, "drift", driftKeys, func(k, v *yaml.Node) {
		switch k.Value {
		case "enabled":
			d.Enabled = p.boolean(v, "drift.enabled")
		case "write-state":
			d.WriteState = p.boolean(v, "drift.write-state")
		}
	})
	return d
}

func (p *parser) projects(v *yaml.Node) []Project {
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		p.errf(v, "projects must be a non-empty list")
		return nil
	}
	var out []Project
	names := map[string]bool{}
	for _, n := range v.Content {
		if n.Kind != yaml.MappingNode {
			p.errf(n, "a project must be a mapping with name, config, environments, autoplan")
			continue
		}
		pr := Project{Config: DefaultConfig, Environments: []string{""}}
		var hasAutoplan bool
		p.each(n, "project", projectKeys, func(k, v *yaml.Node) {
			switch k.Value {
			case "name":
				if pr.Name = p.str(v, "name"); pr.Name != "" && !nameRE().MatchString(pr.Name) {
					p.errf(v, "invalid project name %q (letters, digits, _ . / -)", pr.Name)
				}
			case "config":
				pr.Config = p.str(v, "config")
				if c := path.Clean(pr.Config); pr.Config == "" || path.IsAbs(pr.Config) || c == ".." || strings.HasPrefix(c, "../") {
					p.errf(v, "config must be a path inside the repository, not %q", pr.Config)
				}
				pr.Config = path.Clean(pr.Config)
			case "environments":
				pr.Environments = p.strings(v, "environments")
				if len(pr.Environments) == 0 {
					p.errf(v, "environments must list at least one environment")
				}
				for i, e := range pr.Environments {
					if err := envname.Check(e); err != nil || e == "" {
						p.errf(v.Content[i], "invalid environment name %q (%s)", e, envname.Rule)
					}
				}
			case "autoplan":
				hasAutoplan = true
				pr.Autoplan = p.strings(v, "autoplan")
				for i, g := range pr.Autoplan {
					if g == "" || !doublestar.ValidatePattern(g) {
						p.errf(v.Content[i], "invalid glob %q", g)
					}
				}
			}
		})
		if !hasAutoplan {
			pr.Autoplan = defaultAutoplan(pr.Config)
		}
		if len(v.Content) > 1 && pr.Name == "" {
			p.errf(n, "every project needs a name when there are several")
		}
		if names[pr.Name] {
			p.errf(n, "project %q listed twice", pr.Name)
		}
		names[pr.Name] = true
		out = append(out, pr)
	}
	return out
}
