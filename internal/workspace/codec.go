package workspace

import (
	"context"
	"fmt"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/crypt"
)

// Passphrase variables: the primary key's and the fallback's.
const (
	PassphraseEnv         = "KYKU_STATE_PASSPHRASE"
	FallbackPassphraseEnv = "KYKU_STATE_PASSPHRASE_FALLBACK"
)

// Codec builds the codec enc describes (nil enc: none, state in clear).
func Codec(ctx context.Context, enc *config.Encryption, s Settings) (statemgr.Codec, error) {
	if enc == nil {
		return nil, nil
	}
	primary, err := key(ctx, enc, PassphraseEnv, s)
	if err != nil {
		return nil, err
	}
	var fallbacks []crypt.Key
	if enc.Fallback != nil {
		k, err := key(ctx, enc.Fallback, FallbackPassphraseEnv, s)
		if err != nil {
			return nil, err
		}
		fallbacks = append(fallbacks, k)
	}
	c := crypt.New(primary, fallbacks...)
	if s.AcceptClearState {
		c = c.AcceptingClear()
	}
	return c, nil
}

func key(ctx context.Context, e *config.Encryption, passEnv string, s Settings) (crypt.Key, error) {
	getenv := s.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	switch e.Key {
	case "passphrase":
		p := getenv(passEnv)
		if p == "" {
			return nil, fmt.Errorf("%s: encryption key passphrase: %s is not set (the state is encrypted with it; set it from a secret)", e.Pos, passEnv)
		}
		k, err := crypt.NewPassphrase(p, passEnv, s.ScryptCost)
		if err != nil {
			return nil, fmt.Errorf("%s: encryption: %w", e.Pos, err)
		}
		return k, nil
	case "aws-kms":
		aws, err := s.aws("encryption key aws-kms")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Pos, err)
		}
		return aws.KMSKey(ctx, e, s)
	}
	return nil, fmt.Errorf("%s: encryption: unknown key %q (want passphrase or aws-kms)", e.Pos, e.Key)
}
