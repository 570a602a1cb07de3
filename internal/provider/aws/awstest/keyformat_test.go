package awstest

import (
	"net/url"
	"strings"
	"testing"
)

// The fake parses key material as EC2's ImportKeyPair does.
func TestParseOpenSSHKey(t *testing.T) {
	for _, tc := range []struct {
		name, key, err string
	}{
		{"ed25519", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMPpQ50tnXzmLZQoHDQXbgGqKliupyDcgqzZpLUd/wBU a@b", ""},
		{"ed25519 without comment", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMPpQ50tnXzmLZQoHDQXbgGqKliupyDcgqzZpLUd/wBU", ""},
		{"rsa 2048", "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDh9cWQcGZ3SILLVZk6pqvGBnh91xYiM7Eb0KzgVhu2uPA5EFEq0C1lhvhc5vzTLdUT0myMiAUr3JBVEvO5Mjy03hjy8X6LH8lZmMG6UYJJ5mUrWO8Tmd9LvMsJF8Xd6RhRAUA21iYZ7EysjnIBvekeLHQmGTO7xMktzj8yVALxXDXtYD3rVwBPRmtggXQRV+BrEkzwXa0gUXeleDuLouAat3xJhTxwnRqdolhxosia2KR013HtjoPnyYdkHWCDPLqfV2KVCLmZVchWQT2DbufA0e1kZsDXQQs+CrFEjE/Ix6hhb3x220EvhoLfRX//wH+8jQelGW0oYhtGOmcKcdOz rsa", ""},
		// The example's old key: a valid header, then 38 characters that
		// are no 32-byte key.
		{"old example", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKykuQuickstartExampleKeyOnly0000000000 deploy@kyku", "base64"},
		{"truncated", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKykuTestKeyOnly", "32 bytes"},
		{"type mismatch", "ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIMPpQ50tnXzmLZQoHDQXbgGqKliupyDcgqzZpLUd/wBU", "does not match"},
		{"ecdsa", "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBA==", "not supported"},
		{"one field", "ssh-ed25519", "want"},
		{"not base64", "ssh-ed25519 AAAA!!!!", "base64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseOpenSSHKey(tc.key)
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("err = %v, want %q", err, tc.err)
			}
		})
	}
}

// A page token stays valid when objects come and go between pages, and a
// forged one is refused.
func TestPageTokens(t *testing.T) {
	s := New()
	defer s.Close()
	keys := []string{"a", "b", "c", "d", "e"}
	first, next, e := s.page(form{url.Values{}}, "NextToken", "MaxResults", keys)
	if e != nil || strings.Join(first, "") != "ab" || next == "" {
		t.Fatalf("first page %v, next %q, %v", first, next, e)
	}
	// "a" and "c" go before the next request: the page starts after "b".
	second, _, e := s.page(form{url.Values{"NextToken": {next}}}, "NextToken", "MaxResults", []string{"b", "d", "e"})
	if e != nil || strings.Join(second, "") != "de" {
		t.Errorf("second page %v, %v; want d, e", second, e)
	}
	if _, _, e := s.page(form{url.Values{"NextToken": {"page-2"}}}, "NextToken", "MaxResults", keys); e == nil {
		t.Error("forged token accepted")
	}
}
