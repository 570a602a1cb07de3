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
	c.once.Do(func() { c.tokens = hostcreds.New(env.cliConfig()) })
	return c.tokens
}

// cliConfig is where the CLI configuration (OpenTofu's) is read from for
// this run: its credentials and provider_installation; its problems are
// warnings.
func (env *Env) cliConfig() hostcreds.Sources {
	src := hostcreds.Sources{Getenv: env.Getenv}
	if env.Environ != nil {
		src.Environ = env.Environ()
	}
	if env.notices != nil {
		src.Warn = func(line string) { env.notices.say("kyku: warning: "+line, false) }
	}
	return src
}

// credsCache holds an Env's registry credentials once read.
type credsCache struct {
	once   sync.Once
	tokens *hostcreds.Tokens
}
