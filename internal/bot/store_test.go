package bot_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/bot"
)

func TestStoreFromEnv(t *testing.T) {
	_, pemBytes := testKey(t)
	base := map[string]string{bot.EnvWebhookSecret: "s", bot.EnvAppID: "42", bot.EnvPrivateKey: string(pemBytes), bot.EnvPolicy: policyFile}
	read := func(extra map[string]string) (bot.Config, error) {
		return bot.ConfigFromEnv(func(k string) string {
			if v, ok := extra[k]; ok {
				return v
			}
			return base[k]
		}, readPolicy)
	}
	for _, tc := range []struct {
		url  string
		want *bot.StoreConfig
		err  string
	}{
		{"s3://kyku-bot/replicas/eu?region=eu-west-1", &bot.StoreConfig{Type: "s3", Bucket: "kyku-bot", Prefix: "replicas/eu", Region: "eu-west-1"}, ""},
		{"s3://b?endpoint=http://127.0.0.1:9000&path-style=true", &bot.StoreConfig{Type: "s3", Bucket: "b", Endpoint: "http://127.0.0.1:9000", UsePathStyle: true}, ""},
		{"gs://kyku-bot/p/", &bot.StoreConfig{Type: "gcs", Bucket: "kyku-bot", Prefix: "p"}, ""},
		{"file:///var/kyku", nil, "not file://"},
		{"s3:///prefix", nil, "names no bucket"},
		{"s3://key:secret@bucket/p", nil, "names no bucket"},
		{"s3://b/../other", nil, `".."`},
		{"gs://b/p?region=x", nil, `unknown parameter "region"`},
		{"s3://b/p?endpoint=ftp://x", nil, "not an http(s) URL"},
		{"s3://b/p?path-style=maybe", nil, "not true or false"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			cfg, err := read(map[string]string{bot.EnvStore: tc.url})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), bot.EnvStore) {
					t.Fatalf("err = %v, want one naming %s and saying %s", err, bot.EnvStore, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, cfg.Store); d != "" {
				t.Errorf("store (-want +got):\n%s", d)
			}
		})
	}
	cfg, err := read(map[string]string{bot.EnvDedupeWindow: "96h"})
	if err != nil || cfg.DedupeWindow != 96*time.Hour || cfg.Store != nil {
		t.Errorf("window: %+v, %v", cfg, err)
	}
	if _, err := read(map[string]string{bot.EnvDedupeWindow: "5s"}); err == nil || !strings.Contains(err.Error(), bot.EnvDedupeWindow) {
		t.Errorf("a 5s window: err = %v", err)
	}
	cfg, err = read(map[string]string{bot.EnvLease: "2m"})
	if err != nil || cfg.Lease != 2*time.Minute {
		t.Errorf("lease: %+v, %v", cfg.Lease, err)
	}
	for _, bad := range []string{"500ms", "2h", "soon"} {
		if _, err := read(map[string]string{bot.EnvLease: bad}); err == nil || !strings.Contains(err.Error(), bot.EnvLease) {
			t.Errorf("lease %q: err = %v", bad, err)
		}
	}
}
