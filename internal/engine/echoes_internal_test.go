package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/value"
)

// TestEchoes: an attribute holding a secret argument's text is masked
// whole; one that is only unknown, as the secret is at plan, is not (it
// holds the placeholder every unknown value shares, no secret: tls's
// attributes beside its unknown private key are OpenTofu's unmasked).
func TestEchoes(t *testing.T) {
	tests := []struct {
		name string
		mask []string
		vals map[string]any
		want []string
	}{
		{"a copy of the secret", []string{"input"}, map[string]any{"input": "pw-s3cr3t", "output": "pw-s3cr3t", "id": "x1"}, []string{"output"}},
		{"unknown beside an unknown secret", []string{"private_key_pem"}, map[string]any{"private_key_pem": value.Unknown, "public_key_pem": value.Unknown, "id": value.Unknown}, nil},
		{"nested copy", []string{"input"}, map[string]any{"input": map[string]any{"p": "pw-s3cr3t"}, "output": map[string]any{"p": "pw-s3cr3t"}}, []string{"output"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, echoes(tt.mask, nil, tt.vals)); diff != "" {
				t.Errorf("echoes (-want +got):\n%s", diff)
			}
		})
	}
}
