package cli

import (
	"sync"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/progress"
)

// secretBook holds what a command scrubs from what it prints (its errors,
// the progress view, the apply's summary): the secrets of every
// configuration it loads and every plan it handles (progress.Secrets).
// Error text from the engine or a provider may quote a sensitive value.
// A nil book knows none. Safe for concurrent use.
type secretBook struct {
	mu sync.Mutex
	s  progress.Secrets
}

// learn adds the secrets of cfg and p (either may be nil).
func (b *secretBook) learn(cfg *config.Config, p *plan.Plan) {
	if b == nil {
		return
	}
	s := progress.SecretsOf(cfg, p)
	if s.Len() == 0 {
		return
	}
	b.mu.Lock()
	b.s = b.s.Add(s)
	b.mu.Unlock()
}

// known is the secrets learnt so far.
func (b *secretBook) known() progress.Secrets {
	if b == nil {
		return progress.Secrets{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.s
}
