package statemgr

import "time"

// Heartbeat is the loop every backend's held lock runs: it calls beat every
// interval until stop is closed, or until beat fails with an error for which
// lost reports true (the lock was taken from us), which it returns. Other
// errors (a full disk, the network) are retried at the next tick; if they
// last, the lock goes stale and others may break it.
func Heartbeat(interval time.Duration, stop <-chan struct{}, beat func() error, lost func(error) bool) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return nil
		case <-t.C:
			if err := beat(); err != nil && lost(err) {
				return err
			}
		}
	}
}
