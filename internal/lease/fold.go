package lease

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/kyku/action/internal/state"
)

// Digest is the version of one object in a state: the sha256 of its
// record, "" when the state has none. Any change an apply records changes
// it; a saved plan keeps it for each object it touches.
func Digest(st *state.File, name string) string {
	if st == nil {
		return ""
	}
	r := st.Resources[name]
	if r == nil {
		return ""
	}
	data, err := json.Marshal(r)
	if err != nil {
		return "unencodable"
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Fold applies a dead run's journal records to st, each only while the
// objects it names are still at the version the run found them at (then
// at the version its previous record left them): an object another apply
// changed since (after the dead run's lease went stale) is never set
// back. Folding the same records again changes nothing. It reports
// whether anything changed.
func Fold(st *state.File, recs []Record) bool {
	expected := map[string]string{}
	skip := map[string]bool{}
	changed := false
	for _, r := range recs {
		e := r.Entry
		if e.Lineage != st.Metadata.Lineage {
			continue
		}
		names := []string{e.Name}
		if e.From != "" {
			names = append(names, e.From)
		}
		ok := true
		for _, n := range names {
			want, seen := expected[n]
			if !seen {
				want = r.Prior[n]
				expected[n] = want
			}
			if skip[n] || Digest(st, n) != want {
				skip[n] = true
				ok = false
			}
		}
		if !ok {
			for _, n := range names {
				skip[n] = true
			}
			continue
		}
		if state.Fold(st, []state.Entry{withBase(e, st)}) {
			changed = true
		}
		for _, n := range names {
			expected[n] = Digest(st, n)
		}
	}
	return changed
}

// withBase makes e pass state.Fold's serial check: the version check above
// is what decides here.
func withBase(e state.Entry, st *state.File) state.Entry {
	e.BaseSerial = st.Metadata.Serial
	return e
}
