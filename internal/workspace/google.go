package workspace

import "github.com/kyku/action/internal/statemgr/gcs"

// google is s.Google for what opens a GCS bucket, or, when it is nil, an
// error naming the library this program does not link (kyku's own
// process: kyku-engine, action and bot set it). A bucket on an emulator
// (STORAGE_EMULATOR_HOST, read with getenv) takes no credentials.
func (s Settings) google(what string, getenv func(string) string) (gcs.Credentials, error) {
	if s.Google == nil && getenv("STORAGE_EMULATOR_HOST") == "" {
		return nil, &NotLinkedError{What: what, Library: "Google credentials library (golang.org/x/oauth2/google)"}
	}
	return s.Google, nil
}
