package cli

import (
	"context"
	"fmt"

	"github.com/kyku/action/internal/config"
)

// cmdSchema prints the JSON Schema of kyku.yaml, for editors
// (yaml-language-server reads it; docs/configuration.md says how).
func cmdSchema(_ context.Context, env *Env, args []string) error {
	fs := newFlags("schema", env)
	if err := fs.parseNone(args); err != nil {
		return err
	}
	if _, err := env.Stdout.Write(config.JSONSchema()); err != nil {
		return fmt.Errorf("print schema: %w", err)
	}
	return nil
}
