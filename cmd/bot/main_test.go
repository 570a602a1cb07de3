package main

import (
	"context"
	"strings"
	"testing"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/statemgr/httpstate/httpstatetest"
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
		if _, err := open(context.Background(), cfg, "prod"); err == nil || !strings.Contains(err.Error(), "remote backend (s3, gcs, spaces or http)") {
			t.Errorf("%q: err = %v, want a refusal asking for a remote backend", yaml, err)
		}
	}
}

// Every remote backend is accepted, with its encryption: here the HTTP
// backend protocol with a passphrase, end to end through a plan's state read.
func TestOpenerAcceptsRemoteBackends(t *testing.T) {
	srv := httpstatetest.New(t)
	env := map[string]string{"KYKU_SIM_DIR": t.TempDir(), "KYKU_STATE_PASSPHRASE": "a long enough bot passphrase"}
	open := opener(func(k string) string { return env[k] })
	yaml := "backend: { type: http, address: \"" + srv.URL + "app-{env}\", lockAddress: \"" + srv.URL + "app-{env}\" }\n" +
		"encryption: { key: passphrase }\nresources: {}\n"
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(yaml)}})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := open(context.Background(), cfg, "prod")
	if err != nil {
		t.Fatalf("open with an http backend: %v", err)
	}
	if !strings.Contains(ws.Backend.Describe(), "app-prod") {
		t.Errorf("backend %s, want the app-prod document", ws.Backend.Describe())
	}
}
