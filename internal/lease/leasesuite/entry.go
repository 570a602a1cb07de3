package leasesuite

import "github.com/kyku/action/internal/state"

// stateEntry is a put of object name.
func stateEntry(seq int64, name string) state.Entry {
	return state.Entry{Seq: seq, Lineage: "l", Op: state.OpPut, Name: name, Resource: &state.Resource{Name: name, Type: "TargetGroup"}}
}
