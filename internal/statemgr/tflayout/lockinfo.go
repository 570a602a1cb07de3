package tflayout

import (
	"encoding/json"
	"time"

	"github.com/kyku/action/internal/statemgr"
)

// LockInfo is OpenTofu's lock body (its field names, as its LockInfo has
// them). Kyku's own LockInfo travels in Info as JSON, so that another Kyku
// names the holder fully; OpenTofu shows it as it is.
type LockInfo struct {
	ID        string
	Operation string
	Info      string
	Who       string
	Version   string
	Created   time.Time
	Path      string
}

// Marshal is the body as OpenTofu writes it (json.Marshal of its struct).
func (l LockInfo) Marshal() []byte {
	b, _ := json.Marshal(l) // no value here fails to marshal
	return b
}

// ParseLockInfo reads a lock body; ok is false when it is not one.
func ParseLockInfo(data []byte) (LockInfo, bool) {
	var l LockInfo
	if err := json.Unmarshal(data, &l); err != nil {
		return LockInfo{}, false
	}
	return l, true
}

// tofuLock is Kyku's LockInfo as a lock body: its operation, who and
// when, and itself in Info.
func tofuLock(info statemgr.LockInfo, version string) LockInfo {
	k, _ := json.Marshal(info)
	return LockInfo{ID: info.ID, Operation: info.Operation, Info: string(k), Who: info.Who, Version: version,
		Created: info.Created.UTC(), Path: info.Path}
}

// Holder is what Kyku tells of the holder of a lock body: Kyku's own
// LockInfo when Kyku took it, else OpenTofu's fields (since: Created).
func (l LockInfo) Holder() statemgr.LockInfo {
	var k statemgr.LockInfo
	if json.Unmarshal([]byte(l.Info), &k) == nil && k.ID != "" {
		k.ID = l.ID // the store's token (a GCS lock's is its generation)
		return k
	}
	op := l.Operation
	if l.Version != "" {
		op += " (tofu " + l.Version + ")"
	}
	return statemgr.LockInfo{ID: l.ID, Operation: op, Who: l.Who, Created: l.Created, Heartbeat: l.Created, Path: l.Path}
}
