package tfprovider

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/tfschema"
	"github.com/kyku/action/internal/value"
)

// ValidateConfigs checks every resource and data source of rs against
// the provider's schema (every problem, each with its path: an argument
// the schema lacks, a missing required one, a value of the wrong type,
// too many blocks), then asks the provider (ValidateResourceConfig,
// ValidateDataResourceConfig) about those the schema accepts. References
// are unknown values here. The provider is started and configured first:
// its configuration's errors are the error, positioned (*ConfigError).
func (p *Provider) ValidateConfigs(ctx context.Context, rs []provider.Desired) ([]provider.Refusal, error) {
	_, s, err := p.ensure(ctx)
	if err != nil {
		return nil, err
	}
	// One call per resource, Parallelism at once (in order of rs in the
	// answer, whatever order they finish in).
	per := make([][]provider.Refusal, len(rs))
	errs := make([]error, len(rs))
	p.each(len(rs), func(i int) {
		d := rs[i]
		m, what := s.ResourceTypes, "resource type"
		if d.Data {
			m, what = s.DataSources, "data source"
		}
		rs, ok := m[d.Type]
		if !ok {
			per[i] = []provider.Refusal{{Resource: d.Name, Reason: fmt.Sprintf("provider %s (%s) has no %s %q%s", p.cfg.Name, p.cfg.Source, what, d.Type, closest(d.Type, m))}}
			return
		}
		props, _ := value.Resolve(d.Properties, func(value.Ref) (any, bool) { return nil, false })
		cfg, ds, err := configure(rs.Block, props.(map[string]any))
		if err != nil {
			errs[i] = fmt.Errorf("validate %s %q: %w", d.Type, d.Name, err)
			return
		}
		p.learnConfig(&cfg)
		if d.Data && !ds.HasErrors() && rs.Block.HasSecrets() {
			ds = append(ds, writeOnlyInData(rs.Block, cfg.value())...)
		}
		if !ds.HasErrors() {
			more, err := p.validateOne(ctx, d, cfg.Msgpack)
			if err != nil {
				errs[i] = fmt.Errorf("validate %s %q: %w", d.Type, d.Name, err)
				return
			}
			ds = append(ds, more...)
		}
		per[i] = refusals(d.Name, ds)
	})
	var out []provider.Refusal
	for i := range rs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		out = append(out, per[i]...)
	}
	return out, nil
}

// validateOne asks the provider about one resource or data source, its
// configuration encoded (configure).
func (p *Provider) validateOne(ctx context.Context, d provider.Desired, config []byte) (tfschema.Diagnostics, error) {
	pl, _, release, err := p.acquire(ctx, false)
	if err != nil {
		return nil, err
	}
	defer release()
	return pl.ValidateEncoded(ctx, d.Type, d.Data, config)
}

// each runs f(0) … f(n-1), Parallelism at once, and returns when all
// have.
func (p *Provider) each(n int, f func(int)) {
	workers := p.cfg.Parallelism
	if workers <= 0 {
		workers = 10
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

// refusals are the errors of ds about resource name.
func refusals(name string, ds tfschema.Diagnostics) []provider.Refusal {
	var out []provider.Refusal
	for _, d := range ds {
		if d.Severity == tfschema.Error {
			r := provider.Refusal{Resource: name, Path: kykuPath(d.Path), Reason: lower(message(d)), Summary: d.Summary, Detail: d.Detail}
			if d.TF.Summary != "" {
				r.Summary, r.Detail = d.TF.Summary, d.TF.Detail
			}
			out = append(out, r)
		}
	}
	return out
}

// lower makes a provider's summary read as Kyku's reasons do ("invalid
// value: …"), leaving words in capitals (an acronym) as they are.
func lower(s string) string {
	if len(s) > 1 && s[0] >= 'A' && s[0] <= 'Z' && (s[1] < 'A' || s[1] > 'Z') {
		return strings.ToLower(s[:1]) + s[1:]
	}
	return s
}

// block is the schema of a resource type (data: a data source); ok false
// when the provider has no such type.
func (p *Provider) block(ctx context.Context, typ string, data bool) (*tfschema.Block, bool, error) {
	_, s, err := p.ensure(ctx)
	if err != nil {
		return nil, false, err
	}
	m := s.ResourceTypes
	if data {
		m = s.DataSources
	}
	rs, ok := m[typ]
	if !ok {
		return nil, false, nil
	}
	return rs.Block, true, nil
}
