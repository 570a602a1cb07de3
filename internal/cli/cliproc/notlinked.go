package cliproc

import (
	"context"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/workspace"
)

// NotLinked is the factory of Kyku's provider name in a program that does
// not link it (kyku without kyku-engine beside it): it refuses, naming the
// library the provider needs and kyku-engine.
func NotLinked(name, library string) provider.Factory {
	return func(context.Context, map[string]string, func(string) string) (provider.Provider, error) {
		return nil, &workspace.NotLinkedError{What: "provider " + name, Library: library}
	}
}
