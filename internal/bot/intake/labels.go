package intake

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
)

// knownEvents are the event names metrics label as themselves.
var knownEvents = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"pull_request": true, "issue_comment": true, "repository_dispatch": true, "ping": true,
		"push": true, "pull_request_review": true, "installation": true, "installation_repositories": true,
		"check_run": true, "check_suite": true, "workflow_run": true,
	}
})

// Label is the metrics label of an X-GitHub-Event header: the event name
// for the events the bot knows, "other" for anything else. The header is
// read before the signature is checked, so it must not be able to add
// labels.
func Label(event string) string {
	if knownEvents()[event] {
		return event
	}
	return "other"
}

// signatureHeader returns the hex digest of a well-formed
// "sha256=<64 hex digits>" header.
func signatureHeader(header string) ([]byte, bool) {
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	if !ok || len(hexSig) != 2*sha256.Size {
		return nil, false
	}
	sig, err := hex.DecodeString(hexSig)
	return sig, err == nil
}
