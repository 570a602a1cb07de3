package main

import (
	"context"
	"strings"
	"testing"

	"github.com/kyku/action/internal/config"
)

// The bot keeps nothing that matters on its disk: a project whose config
// has no backend, or a local one, is refused instead of writing state to
// the container.
func TestOpenerRefusesLocalState(t *testing.T) {
	open := opener(func(string) string { return "" })
	for _, yaml := range []string{
		"resources: {}\n",
		"backend: { type: local, path: .kyku }\nresources: {}\n",
	} {
		cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(yaml)}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := open(context.Background(), cfg, "prod"); err == nil || !strings.Contains(err.Error(), "s3 backend") {
			t.Errorf("%q: err = %v, want a refusal asking for an s3 backend", yaml, err)
		}
	}
}
