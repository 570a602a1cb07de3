package tfplugin

import (
	"fmt"
	"net"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// listenIn listens on addr (tcp) in the network namespace of process pid.
func listenIn(pid int, addr string) (net.Listener, error) {
	var l net.Listener
	err := inNetns(pid, func() (err error) {
		l, err = net.Listen("tcp", addr)
		return err
	})
	if err != nil && l != nil {
		l.Close()
	}
	return l, err
}

// dialIn connects to addr from the network namespace of process pid (a
// sandboxed provider that answered its handshake with a tcp address).
func dialIn(pid int, network, addr string) (net.Conn, error) {
	var c net.Conn
	err := inNetns(pid, func() (err error) {
		c, err = net.Dial(network, addr)
		return err
	})
	if err != nil && c != nil {
		c.Close()
	}
	return c, err
}

// inNetns runs fn on a thread of its own moved into the network
// namespace of process pid, and moves the thread back: a socket made there
// stays in that namespace wherever it is used from. Entering another
// process's namespace needs CAP_SYS_ADMIN (Kyku running as root). Should
// the way back fail, the thread is left locked, and Go ends it with the
// goroutine.
func inNetns(pid int, fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		back, err := inNetnsLocked(pid, fn)
		if back {
			runtime.UnlockOSThread()
		}
		errc <- err
	}()
	return <-errc
}

func inNetnsLocked(pid int, fn func() error) (back bool, err error) {
	self, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		return true, fmt.Errorf("network namespace: %w", err)
	}
	defer self.Close()
	target, err := os.Open(fmt.Sprintf("/proc/%d/ns/net", pid))
	if err != nil {
		return true, fmt.Errorf("the provider's network namespace: %w", err)
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return true, fmt.Errorf("enter the provider's network namespace: %w", err)
	}
	ferr := fn()
	if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
		return false, fmt.Errorf("leave the provider's network namespace: %w", err)
	}
	return true, ferr
}
