package config

import (
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/envname"
	"go.yaml.in/yaml/v3"
)

// ParseEach expands files for every environment they declare (for the
// default environment when they declare none; in.Environment is ignored)
// and returns one Config per environment, in name order. Every problem of
// every environment is reported together: one that all environments share
// once, one that only some have with the environment named.
func ParseEach(files []File, in Inputs) ([]*Config, error) {
	envs := DeclaredEnvironments(files)
	if len(envs) == 0 {
		envs = []string{""}
	}
	var out []*Config
	count := map[string]int{}
	byEnv := make([]diag.Diagnostics, len(envs))
	for i, env := range envs {
		in.Environment = env
		cfg, err := ParseEnv(files, in)
		if err == nil {
			out = append(out, cfg)
			continue
		}
		var ds diag.Diagnostics
		if !errors.As(err, &ds) {
			return nil, err
		}
		byEnv[i] = ds
		for _, d := range ds {
			count[d.String()]++
		}
	}
	var all diag.Diagnostics
	seen := map[string]bool{}
	for i, ds := range byEnv {
		for _, d := range ds {
			key := d.String()
			if count[key] < len(envs) && !strings.Contains(d.Message, "environment "+strconv.Quote(envs[i])) {
				d.Message += " (in environment " + strconv.Quote(envs[i]) + ")"
				key = d.String()
			}
			if !seen[key] {
				seen[key] = true
				all = append(all, d)
			}
		}
	}
	if len(all) > 0 {
		all.Sort()
		return nil, all
	}
	return out, nil
}

// DeclaredEnvironments returns the names under environments: in files,
// sorted; files that do not parse are skipped (ParseEnv reports them).
func DeclaredEnvironments(files []File) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		var doc yaml.Node
		if yaml.Unmarshal(f.Data, &doc) != nil || len(doc.Content) == 0 {
			continue
		}
		root := doc.Content[0]
		if root.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value != "environments" || root.Content[i+1].Kind != yaml.MappingNode {
				continue
			}
			envs := root.Content[i+1]
			for j := 0; j+1 < len(envs.Content); j += 2 {
				if name := envs.Content[j].Value; name != "" && envname.Valid(name) && !seen[name] {
					seen[name] = true
					out = append(out, name)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}
