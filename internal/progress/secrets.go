package progress

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// Secrets are the texts a run must never show in clear: sensitive
// variables' values, properties a schema marks sensitive, values derived
// from them. Error text from the engine or a provider may quote any of
// them (`property engine: "…" is not one of …`), so every front door
// scrubs what it prints with one Secrets, the same way: the progress views
// (Options.Secrets, a SecretBook read as they print), the CLI's summaries and errors, the Action's job
// summary and log, and the PR comments and check runs of packages review
// and bot. Scrub replaces each secret by plan.Masked.
//
// The zero value scrubs nothing. Values are immutable and safe for
// concurrent use.
type Secrets struct {
	texts []string          // longest first, then in byte order
	r     *strings.Replacer // every form of every text → plan.Masked; nil when none
}

// NewSecrets returns the secrets texts. Texts shorter than
// config.MinSecret without their surrounding spaces, and the masks
// plan.Masked and value.Unknown, are left out: such values are still
// masked where they are shown as values (a sensitive property never is);
// only their echo in free text is not.
func NewSecrets(texts ...string) Secrets {
	return Secrets{}.With(texts...)
}

// SecretsOf returns the secrets of a configuration and a plan (either may
// be nil): the configuration's (config.SecretValues), the plan's own
// configuration's, what state held as secret of what it destroys or
// replaces (plan.Plan.Secrets), and every value of a property the plan's changes mark
// sensitive, old and new (a provider's sensitive attribute, and what reads
// it, as planned).
func SecretsOf(cfg *config.Config, p *plan.Plan) Secrets {
	texts := cfg.SecretValues()
	if p != nil {
		texts = append(texts, p.Config.SecretValues()...)
		texts = append(texts, p.Secrets...)
		for _, c := range p.Changes {
			for _, pc := range c.Properties {
				if pc.Sensitive {
					texts = value.AppendLeaves(texts, pc.Old)
					texts = value.AppendLeaves(texts, pc.New)
				}
			}
		}
	}
	return NewSecrets(texts...)
}

// With returns s with texts added.
func (s Secrets) With(texts ...string) Secrets {
	all := slices.Clone(s.texts)
	seen := make(map[string]bool, len(all)+len(texts))
	for _, t := range all {
		seen[t] = true
	}
	for _, t := range texts {
		// A value known in part ("db-(known after apply)") is secret in
		// its known parts.
		for _, part := range strings.Split(t, value.Unknown) {
			if len(strings.TrimSpace(part)) >= config.MinSecret && part != plan.Masked && !seen[part] {
				seen[part] = true
				all = append(all, part)
			}
		}
	}
	if len(all) == len(s.texts) {
		return s
	}
	longestFirst(all)
	return Secrets{texts: all, r: replacer(all)}
}

// Add returns the secrets of both s and o.
func (s Secrets) Add(o Secrets) Secrets {
	return s.With(o.texts...)
}

// Len is the number of secrets.
func (s Secrets) Len() int { return len(s.texts) }

// Scrub returns text with every secret replaced by plan.Masked, in one
// pass, the longest secret first where two start at the same place. A
// secret is also found as Go (%q) and JSON quote it, escapes and all: a
// multi-line or quoted value in an error message is rarely verbatim.
func (s Secrets) Scrub(text string) string {
	if s.r == nil {
		return text
	}
	return s.r.Replace(text)
}

// Error returns err with its message scrubbed: err itself when its message
// holds no secret, else an error whose message is scrubbed. That error
// matches what err matched with errors.Is (sentinels say nothing of the
// text), and, when err holds diagnostics, errors.As finds them scrubbed
// (message and file of each) so that they keep their positions; other
// typed errors of err's chain are not reachable from it (their fields may
// hold the secret).
func (s Secrets) Error(err error) error {
	if err == nil || s.r == nil {
		return err
	}
	msg := err.Error()
	scrubbed := s.Scrub(msg)
	if scrubbed == msg {
		return err
	}
	e := &scrubbedError{msg: scrubbed, orig: err}
	var ds diag.Diagnostics
	if errors.As(err, &ds) {
		e.diags = make(diag.Diagnostics, len(ds))
		for i, d := range ds {
			d.Message, d.Pos.File = s.Scrub(d.Message), s.Scrub(d.Pos.File)
			e.diags[i] = d
		}
	}
	return e
}

type scrubbedError struct {
	msg   string
	orig  error
	diags diag.Diagnostics // orig's, scrubbed (nil: none)
}

func (e *scrubbedError) Error() string { return e.msg }

func (e *scrubbedError) Is(target error) bool { return errors.Is(e.orig, target) }

func (e *scrubbedError) As(target any) bool {
	if p, ok := target.(*diag.Diagnostics); ok && e.diags != nil {
		*p = e.diags
		return true
	}
	return false
}

// longestFirst sorts texts longest first, then in byte order.
func longestFirst(texts []string) {
	slices.SortFunc(texts, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
}

// replacer replaces every form of texts (as written, and as Go and JSON
// quote it) by plan.Masked.
func replacer(texts []string) *strings.Replacer {
	var forms []string
	seen := map[string]bool{}
	for _, t := range texts {
		for _, f := range quotedForms(t) {
			if !seen[f] {
				seen[f] = true
				forms = append(forms, f)
			}
		}
	}
	longestFirst(forms)
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, plan.Masked)
	}
	return strings.NewReplacer(pairs...)
}

// quotedForms is t and t as %q, %+q and JSON write it inside their quotes.
func quotedForms(t string) []string {
	forms := []string{t}
	add := func(q string) {
		if len(q) >= 2 {
			if f := q[1 : len(q)-1]; !slices.Contains(forms, f) {
				forms = append(forms, f)
			}
		}
	}
	add(strconv.Quote(t))
	add(strconv.QuoteToASCII(t))
	for _, html := range []bool{true, false} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if enc.Encode(t) == nil {
			add(strings.TrimSuffix(b.String(), "\n"))
		}
	}
	return forms
}

// SecretBook is the one scrubber of a run: every secret the run comes to
// know, from whoever learns it first. The front door learns its
// configurations and plans (Learn); the engine learns what state holds as
// secret and what each applied object does; a Terraform provider learns
// every value its schema marks sensitive or write-only that it sends or
// receives (Add). Whatever prints reads Known when it prints, so an error
// quoting a secret made moments ago is scrubbed. A nil book knows none.
// Safe for concurrent use.
type SecretBook struct {
	mu      sync.Mutex
	s       Secrets
	pending []string // added since s was built (Known folds them in)
}

// NewSecretBook returns a book that knows texts.
func NewSecretBook(texts ...string) *SecretBook {
	b := &SecretBook{}
	b.Add(texts...)
	return b
}

// Learn adds the secrets of cfg and p (either may be nil).
func (b *SecretBook) Learn(cfg *config.Config, p *plan.Plan) {
	if b == nil {
		return
	}
	s := SecretsOf(cfg, p)
	if s.Len() == 0 {
		return
	}
	b.Add(s.texts...)
}

// Add adds texts. It only notes them: the scrubber is built again once,
// by the next Known, however many were added since.
func (b *SecretBook) Add(texts ...string) {
	if b == nil || len(texts) == 0 {
		return
	}
	b.mu.Lock()
	b.pending = append(b.pending, texts...)
	b.mu.Unlock()
}

// Known is the secrets learnt so far.
func (b *SecretBook) Known() Secrets {
	if b == nil {
		return Secrets{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.pending) > 0 {
		b.s = b.s.With(b.pending...)
		b.pending = nil
	}
	return b.s
}
