package action

import "github.com/kyku/action/internal/hostcreds"

// registryCredentials are the tokens of private registries, from the
// step's environment as OpenTofu reads them (package hostcreds):
// TF_TOKEN_<host> variables (from the workflow's secrets), then the
// credentials blocks of the runner's CLI configuration. The repository
// cannot give one: only the workflow's environment and the runner's
// files are read. Their values are masked (maskGiven). Read once per
// run: every root's providers and modules use the same.
func (r *run) registryCredentials() *hostcreds.Tokens {
	r.credsOnce.Do(func() {
		src := hostcreds.Sources{Getenv: r.env.Getenv, Warn: func(line string) { r.a.Warningf("kyku: %s", line) }}
		if r.env.Environ != nil {
			src.Environ = r.env.Environ()
		}
		r.creds = hostcreds.New(src)
	})
	return r.creds
}
