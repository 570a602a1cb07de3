package tfinstall

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// UnreachableError is a host a provider is fetched from that cannot be
// reached: its name does not resolve, or no connection to it can be made
// (offline, behind a firewall). Its text is one line naming the provider,
// the host and how to install without it: a mirror (EnvMirror), filled
// where the registry can be reached.
type UnreachableError struct {
	Source Source
	Host   string
	Reason string // what failed, in words ("its name does not resolve")
	Err    error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("provider %s: %s cannot be reached (%s); to install it without the network, set %s (or --plugin-mirror) to a mirror directory, filled where the registry can be reached with \"kyku providers mirror DIR\"",
		e.Source, e.Host, e.Reason, EnvMirror)
}

// Unwrap is the network's error.
func (e *UnreachableError) Unwrap() error { return e.Err }

// unreachable says, for the error of a request to host, whether the host
// could not be reached and why; a request that reached it (an answer, a
// refused certificate) is not.
func unreachable(host string, err error) (*UnreachableError, bool) {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return &UnreachableError{Host: host, Reason: "its name does not resolve", Err: err}, true
	}
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" {
		return nil, false
	}
	reason := "no connection can be made"
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		reason = "nothing answers at its address"
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		reason = "no route leads to it"
	case op.Timeout():
		reason = "the connection timed out"
	}
	return &UnreachableError{Host: host, Reason: reason, Err: err}, true
}

// forSource is err with the provider named when it is an
// UnreachableError, err itself otherwise.
func forSource(src Source, err error) error {
	var ue *UnreachableError
	if !errors.As(err, &ue) {
		return err
	}
	named := *ue
	named.Source = src
	return &named
}
