package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/state"
)

// A Terraform provider's create answers with the object's ID: killed
// before that answer reaches the journal, an apply leaves an object no
// state records, and nothing tells the next apply where it is. So the
// intent of such a create is journaled, durably, before the provider is
// asked (state.OpIntent), and its outcome closes it. An intent left open
// (state.File.Interrupted) makes every plan that would create the address
// again refuse (InterruptedError) until the object is imported there or
// the intent is dropped (ApplyOptions.ForgetInterrupted). Kyku's own
// types need none: their create finds an object of the same cloud name
// (provider.Applier.Create).

// builtinProvider is OpenTofu's built-in provider, served in process: its
// types (terraform_data) make no object outside the state.
const builtinProvider = "terraform"

// journalsIntent reports whether a create of typ is journaled before the
// provider is asked.
func (x *execution) journalsIntent(typ string) bool {
	ts := x.e.provider.Schema(typ)
	return ts.OwnState && ts.Provider != builtinProvider
}

// intend journals that the provider is about to be asked to create name,
// of type typ; it returns once that is durable.
func (x *execution) intend(ctx context.Context, name, typ string) error {
	if err := x.journal(ctx, state.OpIntent, name, typ); err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.live.Interrupted == nil {
		x.live.Interrupted = map[string]string{}
	}
	x.live.Interrupted[name] = typ
	return nil
}

// settleIntent closes name's intent after a create that failed with err:
// when the provider answered that it made no object (provider.ErrNoObject).
// Any other failure (the plugin gone, the call cut short) leaves it open.
func (x *execution) settleIntent(ctx context.Context, name string, err error) error {
	if !errors.Is(err, provider.ErrNoObject) {
		return nil
	}
	if jerr := x.journal(ctx, state.OpNoObject, name, ""); jerr != nil {
		return jerr
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.live.Interrupted, name)
	return nil
}

// journal appends an intent's entry.
func (x *execution) journal(ctx context.Context, op state.Op, name, typ string) error {
	e := state.Entry{
		Seq: x.seq.Add(1), BaseSerial: x.base.Metadata.Serial, Lineage: x.base.Metadata.Lineage,
		Op: op, Name: name, Type: typ,
	}
	if err := journalOf(ctx, x.e.backend).Append(ctx, e); err != nil {
		return fmt.Errorf("journal %s %q: %w", op, name, err)
	}
	return nil
}

// mergeIntents sets in cur the intents final holds open of names (a
// leased apply's objects), and drops the ones final closed.
func mergeIntents(cur, final *state.File, names []string) {
	for _, n := range names {
		typ, open := final.Interrupted[n]
		switch {
		case open && cur.Interrupted == nil:
			cur.Interrupted = map[string]string{n: typ}
		case open:
			cur.Interrupted[n] = typ
		default:
			delete(cur.Interrupted, n)
		}
	}
}

// InterruptedError refuses a plan that would create again an address whose
// last create was interrupted: the object it may have made is in no state.
type InterruptedError struct {
	Names []string // sorted
	// Destroy says a destroy is refused: it would report everything
	// destroyed and leave the object.
	Destroy bool
	// Replacing are the names (of Names) whose object in state a
	// create-before-destroy replace was replacing: imported, the new
	// object deposes it (intentreplace.go).
	Replacing map[string]bool
	// Removed says an apply destroying what the configuration no longer
	// has is refused: Names are no longer in it (intentremoved.go).
	Removed bool
	// Unkept are the names (of Names) whose create's answer a journal
	// keeper would have kept in this machine's answer box, and none is
	// there: the apply ran on another machine, or without a keeper.
	Unkept map[string]bool
	// Leased are the names (of Names) whose create's answer is kept in
	// this machine's answer box while the apply leases, and so folds none.
	Leased map[string]bool
}

func (e *InterruptedError) Error() string {
	lines := make([]string, len(e.Names))
	for i, n := range e.Names {
		q := shellWord(n)
		if e.Destroy {
			lines[i] = fmt.Sprintf("%s: an apply was interrupted while creating it and the object it may have made is in no state, so destroy would leave it: "+
				"import it (kyku import %s ID), then destroy, or, if it does not exist, drop the intent with kyku destroy --forget-interrupted %s", n, q, q)
			continue
		}
		if e.Removed {
			lines[i] = fmt.Sprintf("%s: an apply was interrupted while creating it and the object it may have made is in no state; it is no longer in the configuration, so this apply, which destroys what was removed, would leave that object: "+
				"put it back and import it (kyku import %s ID), then remove it, or, if it does not exist, drop the intent with kyku apply --forget-interrupted %s", n, q, q)
			continue
		}
		if e.Replacing[n] {
			lines[i] = fmt.Sprintf("%s: an apply was interrupted while creating its replacement (create before destroy) and the object it may have made is in no state: "+
				"import it (kyku import %s ID: the object in state now is deposed, and the next apply destroys it) or, if it does not exist, drop the intent with kyku apply --forget-interrupted %s", n, q, q)
			continue
		}
		if e.Leased[n] {
			lines[i] = fmt.Sprintf("%s: an apply was interrupted while creating it; the provider's answer is kept on this machine, but an apply that leases folds none: "+
				"run kyku apply once with leases: false in the backend block (the whole state's lock), which records the object, then lease again", n)
			continue
		}
		if e.Unkept[n] {
			lines[i] = fmt.Sprintf("%s: an apply was interrupted while creating it, on another machine or without a journal keeper (no answer of it is kept on this one), and the object it may have made is in no state: "+
				"import it (kyku import %s ID, or an import block) or, if it does not exist, drop the intent with kyku apply --forget-interrupted %s", n, q, q)
			continue
		}
		lines[i] = fmt.Sprintf("%s: an apply was interrupted while creating it and the object it may have made is in no state: "+
			"import it (kyku import %s ID, or an import block) or, if it does not exist, drop the intent with kyku apply --forget-interrupted %s", n, q, q)
	}
	return strings.Join(lines, "\n")
}

// refuseInterrupted refuses changes that create an address st holds an
// open intent for.
func refuseInterrupted(st *state.File, changes []plan.Change) error {
	if st == nil || len(st.Interrupted) == 0 {
		return nil
	}
	ie := &InterruptedError{}
	for _, c := range changes {
		if c.Action != plan.Create && c.Action != plan.Replace {
			continue
		}
		if _, ok := st.Interrupted[c.ResourceID]; !ok {
			continue
		}
		ie.Names = append(ie.Names, c.ResourceID)
		if st.Resources[c.ResourceID] != nil {
			if ie.Replacing == nil {
				ie.Replacing = map[string]bool{}
			}
			ie.Replacing[c.ResourceID] = true
		}
	}
	if len(ie.Names) == 0 {
		return nil
	}
	slices.Sort(ie.Names)
	return ie
}

// shellWord is s as one word of a POSIX shell command line.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/:", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
