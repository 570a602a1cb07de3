package statemgr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// What every backend stores means the same in each: these say how a state
// to write is checked, how a journal entry is read back, how backups are
// named, and which object keys are accepted.

// CheckWritable refuses a state that Write must never store: none, another
// format version, or one without a lineage.
func CheckWritable(f *state.File) error {
	switch {
	case f == nil:
		return errors.New("write state: no state given")
	case f.Metadata.Version != state.Version:
		return fmt.Errorf("write state: version %d is not this kyku's version %d", f.Metadata.Version, state.Version)
	case f.Metadata.Lineage == "":
		return errors.New("write state: the state has no lineage")
	}
	return nil
}

// CheckSuccessor refuses, with an error wrapping ErrConflict, a state next
// that may not replace the stored one (lineage, serial) unless forced: it
// has another lineage, or its serial does not rise.
func CheckSuccessor(lineage string, serial int64, next state.Metadata) error {
	if next.Lineage != lineage {
		return fmt.Errorf("lineage %s differs from the stored lineage %s (a different state; use --force to replace it): %w",
			next.Lineage, lineage, ErrConflict)
	}
	if next.Serial <= serial {
		return fmt.Errorf("serial %d is not greater than the stored serial %d: %w", next.Serial, serial, ErrConflict)
	}
	return nil
}

// DecodeEntry reads a journal entry as Append encoded it, with numbers and
// maps normalized as state.Decode leaves them. Bad data wraps
// state.ErrCorrupt.
func DecodeEntry(data []byte) (state.Entry, error) {
	var e state.Entry
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&e); err != nil {
		return state.Entry{}, fmt.Errorf("%w: %v", state.ErrCorrupt, err)
	}
	if r := e.Resource; r != nil {
		r.Config = normMap(r.Config)
		r.Outputs = normMap(r.Outputs)
	}
	return e, nil
}

func normMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return value.Normalize(m).(map[string]any)
}

// backupTime is the UTC timestamp in backup names: sortable, no colons.
const backupTime = "20060102T150405.000Z"

// backupTail matches what follows "<stem>." in a backup name.
var backupTail = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d{8}T\d{6}\.\d{3}Z)\.(\d+)\.json$`)
})

// BackupName is the name of env's backup of serial taken at created:
// "state.<env>.<UTC time to the millisecond>.<serial>.json".
func BackupName(env string, created time.Time, serial int64) string {
	return fmt.Sprintf("%s.%s.%d.json", stem(env), created.UTC().Format(backupTime), serial)
}

// ParseBackupName reads a name BackupName made for env. Another
// environment's backups (whose names extend env's) and stray names do not
// parse.
func ParseBackupName(env, name string) (created time.Time, serial int64, ok bool) {
	rest, ok := strings.CutPrefix(name, stem(env)+".")
	if !ok {
		return time.Time{}, 0, false
	}
	m := backupTail().FindStringSubmatch(rest)
	if m == nil {
		return time.Time{}, 0, false
	}
	created, err1 := time.Parse(backupTime, m[1])
	serial, err2 := strconv.ParseInt(m[2], 10, 64)
	if err1 != nil || err2 != nil {
		return time.Time{}, 0, false
	}
	return created, serial, true
}

// SortBackups orders backups newest first (by time, then serial, then key).
func SortBackups(list []BackupInfo) {
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if !a.Created.Equal(b.Created) {
			return a.Created.After(b.Created)
		}
		if a.Serial != b.Serial {
			return a.Serial > b.Serial
		}
		return a.Key > b.Key
	})
}

// CheckObjectKey refuses an object key that is not a non-empty relative
// slash-separated path of real segments (no "", "." or "..").
func CheckObjectKey(key string) error {
	if key == "" || strings.HasPrefix(key, "/") || strings.HasSuffix(key, "/") {
		return fmt.Errorf("object key %q must be a non-empty relative path", key)
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("object key %q has an empty, \".\" or \"..\" segment", key)
		}
	}
	return nil
}
