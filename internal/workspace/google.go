package workspace

import (
	"errors"

	"github.com/kyku/action/internal/statemgr/gcs"
)

// notLinkedGoogle is err, from opening a gcs backend (what) with
// Settings.Google as its credentials, as a *NotLinkedError naming the
// library when gcs refused a real bucket for want of them (Google is nil
// in kyku's own process; kyku-engine, action and bot set it). A bucket on
// an emulator (STORAGE_EMULATOR_HOST) takes none: gcs.NewClient decides.
func notLinkedGoogle(what string, err error) error {
	if errors.Is(err, gcs.ErrNoCredentials) {
		return &NotLinkedError{What: what, Library: "Google credentials library (golang.org/x/oauth2/google)"}
	}
	return err
}
