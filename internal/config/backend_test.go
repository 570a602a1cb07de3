package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kyku/action/internal/diag"
)

// Each backend type parses into its own fields; encryption with a fallback
// parses beside it.
func TestBackendTypesAndEncryption(t *testing.T) {
	off := false
	tests := []struct {
		name, yaml string
		want       *Backend
	}{
		{"gcs", "backend: { type: gcs, bucket: acme-state, prefix: infra/net }\n",
			&Backend{Type: "gcs", Bucket: "acme-state", Prefix: "infra/net"}},
		{"spaces", "backend: { type: spaces, bucket: acme, region: fra1, prefix: infra, lock: false }\n",
			&Backend{Type: "spaces", Bucket: "acme", Region: "fra1", Prefix: "infra", Lock: &off}},
		{"http", "backend:\n  type: http\n  address: https://gitlab.example.com/api/v4/projects/7/terraform/state/prod\n" +
			"  lockAddress: https://gitlab.example.com/api/v4/projects/7/terraform/state/prod/lock\n" +
			"  unlockAddress: https://gitlab.example.com/api/v4/projects/7/terraform/state/prod/lock\n" +
			"  username: ci\n  lockMethod: POST\n  unlockMethod: DELETE\n  retryMax: 4\n",
			&Backend{Type: "http", HTTP: HTTPBackend{
				Address:       "https://gitlab.example.com/api/v4/projects/7/terraform/state/prod",
				LockAddress:   "https://gitlab.example.com/api/v4/projects/7/terraform/state/prod/lock",
				UnlockAddress: "https://gitlab.example.com/api/v4/projects/7/terraform/state/prod/lock",
				Username:      "ci", LockMethod: "POST", UnlockMethod: "DELETE", RetryMax: 4,
			}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := mustParse(t, tc.yaml)
			if d := cmp.Diff(tc.want, cfg.Backend, cmpopts.IgnoreFields(Backend{}, "Pos")); d != "" {
				t.Errorf("backend (-want +got):\n%s", d)
			}
		})
	}
	cfg := mustParse(t, "encryption:\n  key: aws-kms\n  keyId: alias/kyku-state\n  region: eu-central-1\n  fallback: { key: passphrase }\n")
	want := &Encryption{Key: "aws-kms", KeyID: "alias/kyku-state", Region: "eu-central-1",
		Pos: diag.Pos{File: "kyku.yaml", Line: 1, Col: 1}, Fallback: &Encryption{Key: "passphrase", Pos: diag.Pos{File: "kyku.yaml", Line: 5, Col: 3}}}
	if d := cmp.Diff(want, cfg.Encryption); d != "" {
		t.Errorf("encryption (-want +got):\n%s", d)
	}
}

// An address that is not an http URL is refused without quoting its
// query string or user information, where tokens live.
func TestBackendAddressErrorHidesTokens(t *testing.T) {
	_, err := Parse([]File{{Name: "kyku.yaml", Data: []byte("backend: { type: http, address: \"ftp://ci:pw-s3cret@h.example/s?access_token=tok-s3cret\" }\n")}})
	if err == nil {
		t.Fatal("an ftp address was accepted")
	}
	msg := err.Error()
	if !strings.Contains(msg, `kyku.yaml:1:33: backend.address: "ftp://h.example/s…" is not an http:// or https:// URL`) || strings.Contains(msg, "s3cret") {
		t.Errorf("err = %s; want the position and the address cut before its secrets", msg)
	}
}
