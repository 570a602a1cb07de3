package tfplugin

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestAwaitHandshake: the one wait Start and the journal keeper share
// ends with the handshake line, or says why there is none: the provider
// exited, the caller gave up (its cause), or the time ran out.
func TestAwaitHandshake(t *testing.T) {
	cause := errors.New("interrupted")
	for _, tt := range []struct {
		name    string
		setup   func(line chan string, exited chan struct{}, cancel context.CancelCauseFunc)
		want    string
		wantErr string
	}{
		{"line", func(line chan string, _ chan struct{}, _ context.CancelCauseFunc) { line <- "1|6|unix|/s|grpc|x" }, "1|6|unix|/s|grpc|x", ""},
		{"exited", func(_ chan string, exited chan struct{}, _ context.CancelCauseFunc) { close(exited) }, "", "the provider exited before its handshake"},
		{"cancelled", func(_ chan string, _ chan struct{}, cancel context.CancelCauseFunc) { cancel(cause) }, "", "interrupted"},
		{"timeout", func(chan string, chan struct{}, context.CancelCauseFunc) {}, "", "no handshake from the provider within 20ms"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			line, exited := make(chan string, 1), make(chan struct{})
			ctx, cancel := context.WithCancelCause(t.Context())
			defer cancel(nil)
			tt.setup(line, exited, cancel)
			got, err := awaitHandshake(ctx, line, exited, 20*time.Millisecond)
			if got != tt.want || (err == nil) != (tt.wantErr == "") || err != nil && err.Error() != tt.wantErr {
				t.Errorf("awaitHandshake = %q, %v; want %q, %q", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
