//go:build !linux

package tfplugin

import (
	"fmt"
	"net"
	"os"
)

func errNotLinux() error { return fmt.Errorf("%w: provider sandboxes need Linux", ErrNoSandbox) }

func listenIn(int, string) (net.Listener, error)   { return nil, errNotLinux() }
func dialIn(int, string, string) (net.Conn, error) { return nil, errNotLinux() }

func userNamespaceFilter() (*os.File, error) { return nil, errNotLinux() }
