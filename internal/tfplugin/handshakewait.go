package tfplugin

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"time"
)

// defaultStartTimeout bounds a provider's launch and handshake
// (Config.StartTimeout's default, and the journal keeper's).
const defaultStartTimeout = time.Minute

// errExitedBeforeHandshake is awaitHandshake's error when the provider
// ends first.
var errExitedBeforeHandshake = errors.New("the provider exited before its handshake")

// awaitHandshake waits for the provider's handshake line (line) until it
// exits (exited is closed), ctx ends (its cause) or timeout passes: how
// Start waits for the provider it launched, and a journal keeper for the
// one it launched for Kyku.
func awaitHandshake(ctx context.Context, line <-chan string, exited <-chan struct{}, timeout time.Duration) (string, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case hs := <-line:
		return hs, nil
	case <-exited:
		return "", errExitedBeforeHandshake
	case <-ctx.Done():
		return "", context.Cause(ctx)
	case <-t.C:
		return "", fmt.Errorf("no handshake from the provider within %s", timeout)
	}
}

// providerTLS is the TLS of a connection to a provider (go-plugin's
// automatic mutual TLS): Kyku's client certificate, and the provider's
// own, from its handshake, as the one root trusted.
func providerTLS(client tls.Certificate, server *x509.Certificate) *tls.Config {
	roots := x509.NewCertPool()
	roots.AddCert(server)
	return &tls.Config{
		Certificates: []tls.Certificate{client},
		RootCAs:      roots,
		ServerName:   "localhost",
		MinVersion:   tls.VersionTLS12,
	}
}
