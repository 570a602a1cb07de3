package cli

import (
	"sync"

	"github.com/kyku/action/internal/hostcreds"
)

// registryCredentials are the tokens of private registries for this run,
// as OpenTofu finds them (package hostcreds): TF_TOKEN_<host> in the
// environment, then the CLI configuration's credentials blocks. They are
// read on the first request to a registry; a problem of the CLI
// configuration is a warning, as in OpenTofu.
func (env *Env) registryCredentials() *hostcreds.Tokens {
	if env.creds == nil {
		env.creds = &credsCache{}
	}
	c := env.creds
	c.once.Do(func() {
		src := hostcreds.Sources{Getenv: env.Getenv}
		if env.Environ != nil {
			src.Environ = env.Environ()
		}
		if env.notices != nil {
			src.Warn = func(line string) { env.notices.say("kyku: warning: "+line, false) }
		}
		c.tokens = hostcreds.New(src)
	})
	return c.tokens
}

// credsCache holds an Env's registry credentials once read.
type credsCache struct {
	once   sync.Once
	tokens *hostcreds.Tokens
}
