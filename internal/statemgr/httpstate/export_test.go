package httpstate

import "context"

// PutRaw stores data at the backend's address as is (tests).
func PutRaw(ctx context.Context, b *Backend, data []byte) error {
	_, _, err := b.do(ctx, b.cfg.UpdateMethod, b.cfg.Address, data)
	return err
}

// Redact is redact (tests).
func Redact(s string) string { return redact(s) }
