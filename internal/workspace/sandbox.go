package workspace

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/tfinstall"
	"github.com/kyku/action/internal/tfplugin"
)

// Confinement is how one provider runs in its sandbox.
type Confinement struct {
	Sandbox tfplugin.Sandbox
	// Env is the provider's whole environment: the credentials granted
	// to it.
	Env []string
}

// ErrProvidersRefused is wrapped by the error of a configuration whose
// providers cannot run where they must be sandboxed.
//
//lint:ignore ST1005 Terraform is a proper name
var ErrProvidersRefused = errors.New("Terraform providers refused")

// confine is the sandbox and environment of each entry of cfg.Providers
// (sources srcs), none without s.Plugins.Confine.
func confine(ctx context.Context, cfg *config.Config, srcs []tfinstall.Source, s Settings) ([]*Confinement, error) {
	out := make([]*Confinement, len(srcs))
	if s.Plugins.Confine == nil || len(srcs) == 0 {
		return out, nil
	}
	var ds diag.Diagnostics
	for i, src := range srcs {
		c, err := s.Plugins.Confine(src)
		if err != nil {
			pp := cfg.Providers[i]
			ds.Add(pp.SourcePos, "provider %q (%s): %v", pp.Name, src, err)
			continue
		}
		out[i] = &c
	}
	if err := ds.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProvidersRefused, err)
	}
	if err := tfplugin.CheckSandbox(ctx, &out[0].Sandbox); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProvidersRefused, err)
	}
	return out, nil
}

// ConfineAll confines every provider to sb with env (Plugins.Confine).
func ConfineAll(sb tfplugin.Sandbox, env []string) func(tfinstall.Source) (Confinement, error) {
	return func(tfinstall.Source) (Confinement, error) { return Confinement{Sandbox: sb, Env: env}, nil }
}

// OwnSandbox is the sandbox of providers a person or a job runs for
// itself (the Action, kyku --sandbox): as root a network of their own
// through Kyku's proxy, which refuses the metadata addresses and deny
// (KYKU_PROVIDER_DENY's value: ParseDeny), and the host's network as it is
// otherwise (this machine's own services stay reachable either way); the
// files given (relative ones are taken from the working directory).
func OwnSandbox(deny string, files []string) (tfplugin.Sandbox, error) {
	more, err := ParseDeny(deny)
	if err != nil {
		return tfplugin.Sandbox{}, err
	}
	sb := tfplugin.Sandbox{Network: tfplugin.NetworkBest, Deny: append(tfplugin.MetadataNets(), more...)}
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return sb, fmt.Errorf("sandbox file %s: %w", f, err)
		}
		sb.Files = append(sb.Files, abs)
	}
	return sb, nil
}

// ParseDeny reads KYKU_PROVIDER_DENY: addresses or CIDR ranges (IPv4 or
// IPv6), separated by commas or spaces, that a sandboxed provider's proxy
// refuses besides the front door's own (an operator's internal networks).
func ParseDeny(v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		p, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil {
				return nil, fmt.Errorf("KYKU_PROVIDER_DENY: %q is not an address or a CIDR range such as 10.0.0.0/8", f)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
