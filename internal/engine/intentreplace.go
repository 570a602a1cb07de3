package engine

import (
	"fmt"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
)

// A create-before-destroy replace whose create is interrupted leaves the
// object it replaces at its address and the intent open there. Importing
// the object the create made (kyku import NAME ID) records it as the
// address's, and the old one as deposed: the state OpenTofu holds after a
// create-before-destroy create, whose deposed object the next apply
// destroys.

// replacedByInterrupted reports whether importing name must depose the
// object st holds there (an interrupted create's intent is open at name),
// or refuses name in state without one.
func replacedByInterrupted(st *state.File, name string) (bool, error) {
	sr := st.Resources[name]
	if sr == nil {
		return false, nil
	}
	if _, open := st.Interrupted[name]; !open {
		return false, fmt.Errorf("import: %s is in state already (id %s); forget it first with kyku state rm %s", name, sr.ProviderID, name)
	}
	if d := st.Resources[plan.DeposedName(name)]; d != nil {
		return false, fmt.Errorf("import: %s: an object an earlier replace deposed (id %s) is still in state beside the one the interrupted create replaces; forget it first with kyku state rm %s",
			name, d.ProviderID, shellWord(d.Name))
	}
	return true, nil
}

// deposeFor moves the object st holds at name to name's deposed name.
func deposeFor(st *state.File, name string) {
	dep := st.Resources[name].Clone()
	dep.Name = plan.DeposedName(name)
	st.Resources[dep.Name] = dep
	delete(st.Resources, name)
}
